//! `etwsim-cc` and `etwsim-c++`: gcc and g++ with what a Windows build of an ETW program
//! has (in the manner of winegcc). Shared by both binaries (`#[path]`-included).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Where the headers, the startup source and the library are.
struct Layout {
    include: PathBuf,
    crt0: PathBuf,
    lib: PathBuf,
}

/// Finds the layout: `ETWSIM_SYS_DIR` (the crate's directory: `include/`, `crt/`, and the
/// library in `ETWSIM_SYS_DIR/lib` or next to the driver), else relative to the driver
/// (`target/<profile>/etwsim-cc` → `crates/sys`), else the crate this driver was built from.
fn layout() -> Result<Layout, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find my own path: {e}"))?;
    let exe_dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut sys_dirs = Vec::new();
    if let Some(d) = std::env::var_os("ETWSIM_SYS_DIR") {
        sys_dirs.push(PathBuf::from(d));
    } else {
        sys_dirs.push(exe_dir.join("../../crates/sys"));
        sys_dirs.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    }
    let mut tried = Vec::new();
    for sys in sys_dirs {
        let include = sys.join("include");
        let crt0 = sys.join("crt/etwsim_crt0.c");
        let libs = [
            sys.join("lib"),
            exe_dir.clone(),
            sys.join("../../target/release"),
        ];
        let lib = libs.iter().find(|d| d.join("libetwsim_sys.so").is_file());
        tried.push(sys.display().to_string());
        if include.join("win/windows.h").is_file() && crt0.is_file() {
            let Some(lib) = lib else {
                return Err(format!(
                    "libetwsim_sys.so is in none of {}; build it with `cargo build --release -p etwsim-sys`",
                    libs.iter()
                        .map(|d| d.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            };
            let canon = |p: PathBuf| p.canonicalize().unwrap_or(p);
            return Ok(Layout {
                include: canon(include),
                crt0: canon(crt0),
                lib: canon(lib.clone()),
            });
        }
    }
    Err(format!(
        "etwsim's headers (include/win/windows.h, crt/etwsim_crt0.c) are in none of: {}; set ETWSIM_SYS_DIR to the etwsim-sys crate directory",
        tried.join(", ")
    ))
}

/// Runs the driver: `cxx` picks g++ and C++.
pub(crate) fn main(name: &str, cxx: bool) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let l = match layout() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("{name}: {e}");
            return ExitCode::from(2);
        }
    };
    let compiler = std::env::var(if cxx { "ETWSIM_CXX" } else { "ETWSIM_CC" })
        .unwrap_or_else(|_| (if cxx { "g++" } else { "gcc" }).to_owned());
    let only_compile = args.iter().any(|a| {
        matches!(
            a.as_str(),
            "-c" | "-S"
                | "-E"
                | "-M"
                | "-MM"
                | "-fsyntax-only"
                | "--version"
                | "-v"
                | "-dumpversion"
        )
    });
    let mut cmd = Command::new(&compiler);
    cmd.args([
        "-fshort-wchar",
        "-U_FORTIFY_SOURCE",
        "-D_WIN32",
        "-D_WIN64",
        "-D_M_X64=100",
        "-D_M_AMD64=100",
        "-D_AMD64_",
    ]);
    cmd.arg("-I")
        .arg(l.include.join("win"))
        .arg("-I")
        .arg(&l.include);
    if cxx {
        cmd.arg("-include").arg(l.include.join("win/etwsim_cxx.h"));
    }
    cmd.args(&args);
    let tmp;
    if !only_compile {
        // The startup object, built for this link.
        tmp = std::env::temp_dir().join(format!("etwsim-cc-{}", std::process::id()));
        if let Err(e) = std::fs::create_dir_all(&tmp) {
            eprintln!("{name}: cannot create {}: {e}", tmp.display());
            return ExitCode::from(2);
        }
        let obj = tmp.join("etwsim_crt0.o");
        let st = Command::new(if cxx { "gcc" } else { &compiler })
            .args(["-x", "c", "-c", "-O2", "-fPIC", "-fshort-wchar"])
            .arg(&l.crt0)
            .arg("-o")
            .arg(&obj)
            .status();
        if !matches!(st, Ok(s) if s.success()) {
            eprintln!("{name}: cannot build {}", l.crt0.display());
            let _ = std::fs::remove_dir_all(&tmp);
            return ExitCode::from(2);
        }
        // `-x none`: a `-x c++` of the program's must not apply to the object.
        cmd.arg("-x").arg("none").arg(&obj);
        cmd.arg("-L")
            .arg(&l.lib)
            .arg(format!("-Wl,-rpath,{}", l.lib.display()));
        cmd.args(["-letwsim_sys", "-lpthread"]);
    } else {
        tmp = PathBuf::new();
    }
    let status = cmd.status();
    if !tmp.as_os_str().is_empty() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    match status {
        Ok(s) => ExitCode::from(s.code().unwrap_or(1).clamp(0, 255) as u8),
        Err(e) => {
            eprintln!("{name}: cannot run {compiler}: {e}");
            ExitCode::from(2)
        }
    }
}
