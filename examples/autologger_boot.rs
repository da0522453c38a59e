//! Boots a machine from `examples/autologger/two_autologgers.reg` four times: the FileMax = 3
//! session's files rotate (.0001, .0002, .0003, then .0001 again), a misconfigured value is
//! overridden (NEWFILE in an AutoLogger's LogFileMode, ALG-03), and a provider that registers
//! after boot is enabled with the registry's level and keywords (ALG-05, ALG-06).
//!
//! `cargo run --example autologger_boot`
use etwsim::registry::Registry;
use etwsim::{BootOptions, EventDescriptor, Kernel, Keyword, Level, LogFileMode, Machine, Token};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let text = include_bytes!("autologger/two_autologgers.reg");
    let (registry, import) = Registry::from_reg(text)?;
    assert!(import.issues.is_empty(), "{:?}", import.issues);
    let root = std::env::temp_dir().join(format!("etwsim-autologger-boot-{}", std::process::id()));
    let builder = Kernel::builder().deterministic(1);
    let mut machine = Machine::boot(builder, registry, BootOptions::new(&root))?;
    let provider_guid = "{0d9a6a3c-1111-4222-8333-444455556666}".parse()?;
    let mut files = Vec::new();
    for boot in 1..=4 {
        if boot > 1 {
            machine.reboot()?;
        }
        let report = machine.report();
        let contoso = report
            .sessions
            .iter()
            .find(|s| s.name == "Contoso-Boot")
            .ok_or("Contoso-Boot is missing")?;
        let file = contoso
            .log_file
            .clone()
            .ok_or("Contoso-Boot writes no file")?;
        println!("boot {boot}: Contoso-Boot writes {file}");
        files.push(file);

        // A provider that registers after boot is enabled as it registers.
        let app = machine
            .kernel()
            .spawn("contoso.exe", Token::user("alice"))?;
        let provider = app.register_provider(provider_guid)?;
        assert!(provider.is_enabled_for(Level::INFORMATION, Keyword(0x1)));
        assert!(!provider.is_enabled_for(Level::VERBOSE, Keyword(0x1)));
        provider.write(
            &EventDescriptor::new(1, Level::INFORMATION, Keyword(0x1)),
            &[b"booted"],
        )?;
    }
    println!("provider {provider_guid} was enabled at level 4, keywords 0xff, at every boot");

    let suffixes: Vec<&str> = files.iter().map(|f| &f[f.len() - 5..]).collect();
    assert_eq!(suffixes, [".0001", ".0002", ".0003", ".0001"]);

    // The misconfigured session: NEWFILE removed, ClockType 7 replaced by 1 (ALG-03).
    let live = machine
        .report()
        .sessions
        .iter()
        .find(|s| s.name == "Fabrikam-Live")
        .ok_or("Fabrikam-Live is missing")?;
    let mode = live
        .in_force
        .as_ref()
        .ok_or("Fabrikam-Live did not start")?
        .log_file_mode;
    assert!(!mode.contains(LogFileMode::NEWFILE));
    for note in &live.overrides {
        println!("Fabrikam-Live: {note}");
    }

    machine.shutdown();
    let disk = machine.kernel().virtual_disk().ok_or("no virtual disk")?;
    for path in disk.paths() {
        let size = disk.read(&path).map_or(0, |b| b.len());
        let shown = path.strip_prefix(&root).unwrap_or(&path);
        println!("on disk: {} ({size} bytes)", shown.display());
    }
    let _ = std::fs::remove_dir_all(&root);
    Ok(())
}
