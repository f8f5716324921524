//! `say!`, the examples' `println!`: it ends the process quietly once stdout is closed (`| head`),
//! where `println!` would panic on the broken pipe: the reader has what it wanted. Included by
//! path (`#[macro_use] #[path = "common/say.rs"] mod say;`), as the examples are separate programs.

/// `println!` to stdout that exits with status 0 on a closed pipe and 1 on any other write error.
macro_rules! say {
    ($($fmt:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout(), $($fmt)*) {
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                eprintln!("writing to stdout: {e}");
                std::process::exit(1);
            }
            std::process::exit(0);
        }
    }};
}
