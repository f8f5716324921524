//! Raw identifiers (`r#name`) are refused in `#[kernel]` and `#[func]` items.
//!
//! rustc resolves `r#i` and `i` to one name, but an identifier's text keeps the prefix: the
//! owner-computes rule, the rebinding checks and the bounds-check hoisting compare names by
//! text, so `let r#i = i + 1; y[i] = ..` would rebind the work index behind their back (a write
//! another work item owns, or past the extent the hoisted check tested). Rather than teach every
//! comparison to strip the prefix, the macros refuse the spelling: a kernel never needs it (a
//! keyword is not a useful local name, and plain names are always available).

use proc_macro2::{TokenStream, TokenTree};

/// `Err` naming the first raw identifier anywhere in `tokens` (groups included).
pub fn check(tokens: &TokenStream, what: &str) -> syn::Result<()> {
    for t in tokens.clone() {
        match t {
            TokenTree::Ident(id) if id.to_string().starts_with("r#") => {
                return Err(syn::Error::new(
                    id.span(),
                    format!(
                        "raw identifiers (`{id}`) are not accepted in {what}: rustc reads `{id}` \
                         as the same name as `{}`, which the macro's ownership and bounds checks \
                         compare by spelling; use a plain name",
                        id.to_string().trim_start_matches("r#")
                    ),
                ));
            }
            TokenTree::Group(g) => check(&g.stream(), what)?,
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check;
    use quote::quote;

    #[test]
    fn raw_identifiers_are_refused_anywhere() {
        let cases = [
            quote!(
                fn k(i: usize, y: ViewMut<u64>) {
                    let r#i = i + 1;
                    y[i] = 1;
                }
            ),
            quote!(
                fn k(r#i: usize, y: ViewMut<u64>) {
                    y[i] = 1;
                }
            ),
            quote!(
                fn k(team: &TeamMember) {
                    for r#j in team.thread_range(4) {}
                }
            ),
            quote!(
                fn k(team: &TeamMember) {
                    team.thread_reduce(4, Sum, |r#j, a: &mut f64| {});
                }
            ),
        ];
        for c in cases {
            let e = check(&c, "kernels").unwrap_err().to_string();
            assert!(e.contains("raw identifiers"), "{c}: {e}");
        }
        let plain = quote!(
            fn k(i: usize, y: ViewMut<u64>) {
                let j = i;
                y[j] = 1;
            }
        );
        assert!(check(&plain, "kernels").is_ok());
    }
}
