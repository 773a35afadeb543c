//! How a client's config starts mcpguard. By default the full path of the running binary
//! (clients start servers without the user's shell, so without its PATH); but a binary that
//! runs from a package runner's cache (npx's `_npx`, uvx's `archive-v0`) is in a folder the
//! runner may empty at any time, so the config names the runner's command instead:
//! `npx -y mcpguard` or `uvx mcpguard`. A `--mcpguard COMMAND` of the user's is split as a shell
//! would split it.

use std::path::Path;

/// A command and the arguments before mcpguard's own (`npx` `-y mcpguard`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launcher {
    pub command: String,
    pub args: Vec<String>,
}

/// The package runners whose caches come and go, by a folder their cached binaries sit under,
/// and the command that starts mcpguard through each.
const RUNNERS: [(&str, &str, &[&str]); 2] = [
    ("_npx", "npx", &["-y", "mcpguard"]),
    ("archive-v0", "uvx", &["mcpguard"]),
];

impl Launcher {
    /// How to start the binary at `exe`: its path, or its runner's command.
    pub fn for_binary(exe: &Path) -> Launcher {
        let in_folder = |name: &str| exe.components().any(|c| c.as_os_str() == name);
        match RUNNERS.iter().find(|(folder, ..)| in_folder(folder)) {
            Some((_, command, args)) => Launcher {
                command: (*command).to_owned(),
                args: args.iter().map(|a| (*a).to_owned()).collect(),
            },
            None => Launcher {
                command: exe.display().to_string(),
                args: Vec::new(),
            },
        }
    }

    /// A command line the user gave (`"npx -y mcpguard"`, `/opt/bin/mcpguard`), split as a
    /// shell would; `None` when it is empty or its quotes do not close.
    pub fn parse(line: &str) -> Option<Launcher> {
        let mut words = shlex::split(line)?.into_iter();
        let command = words.next()?;
        Some(Launcher {
            command,
            args: words.collect(),
        })
    }

    /// How it reads in a message: the command line.
    pub fn display(&self) -> String {
        std::iter::once(self.command.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Where `proxy` is in the arguments of an entry started as `…/mcpguard proxy …` or through a
/// runner (`npx -y mcpguard proxy …`, `uvx mcpguard@0.1.0 proxy …`): the index of `proxy`.
pub fn proxy_index(command: &str, args: &[&str]) -> Option<usize> {
    let program = command.rsplit(['/', '\\']).next().unwrap_or(command);
    let program = program.strip_suffix(".exe").unwrap_or(program);
    let program = program.strip_suffix(".cmd").unwrap_or(program);
    if program == "mcpguard" {
        return (args.first() == Some(&"proxy")).then_some(0);
    }
    if !RUNNERS.iter().any(|(_, runner, _)| *runner == program) {
        return None;
    }
    let package =
        |a: &str| a == "mcpguard" || a.starts_with("mcpguard@") || a.starts_with("mcpguard==");
    let at = args.iter().position(|a| package(a))?;
    (args.get(at + 1) == Some(&"proxy")).then_some(at + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runners_cache_gives_the_runners_command() {
        let npx =
            Path::new("/home/u/.npm/_npx/1a2b/node_modules/@mcpguard/cli-linux-x64/bin/mcpguard");
        assert_eq!(Launcher::for_binary(npx).display(), "npx -y mcpguard");
        let uvx = Path::new("/home/u/.cache/uv/archive-v0/Xy12/bin/mcpguard");
        assert_eq!(Launcher::for_binary(uvx).display(), "uvx mcpguard");
        // Installed for good: the path itself.
        for kept in [
            "/usr/local/bin/mcpguard",
            "/home/u/.local/share/uv/tools/mcpguard/bin/mcpguard",
            "/usr/lib/node_modules/mcpguard/node_modules/@mcpguard/cli-linux-x64/bin/mcpguard",
        ] {
            assert_eq!(Launcher::for_binary(Path::new(kept)).display(), kept);
        }
    }

    #[test]
    fn proxied_entries_are_found_through_any_launcher() {
        assert_eq!(
            proxy_index("/usr/bin/mcpguard", &["proxy", "--", "x"]),
            Some(0)
        );
        assert_eq!(proxy_index("C:\\bin\\mcpguard.exe", &["proxy"]), Some(0));
        assert_eq!(
            proxy_index("npx", &["-y", "mcpguard", "proxy", "--", "x"]),
            Some(2)
        );
        assert_eq!(
            proxy_index("npx.cmd", &["-y", "mcpguard@0.1.0", "proxy"]),
            Some(2)
        );
        assert_eq!(
            proxy_index("uvx", &["mcpguard", "proxy", "--", "x"]),
            Some(1)
        );
        assert_eq!(proxy_index("uvx", &["mcpguard==0.1.0", "proxy"]), Some(1));
        assert_eq!(proxy_index("npx", &["-y", "some-server"]), None);
        assert_eq!(proxy_index("npx", &["-y", "mcpguard", "audit"]), None);
        assert_eq!(proxy_index("mcpguard", &["audit"]), None);
        assert_eq!(
            Launcher::parse("npx -y 'mcpguard'").unwrap().args,
            ["-y", "mcpguard"]
        );
        assert!(Launcher::parse("  ").is_none() && Launcher::parse("'open").is_none());
    }
}
