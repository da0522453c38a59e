//! `etwsim-c++`: g++ with a Windows build's environment for ETW programs (see `driver.rs`).
#[path = "../driver.rs"]
mod driver;

fn main() -> std::process::ExitCode {
    driver::main("etwsim-c++", true)
}
