//! `mcpguard install --client` on each client's file as its documentation shows it, in a
//! temporary HOME and project: the file after install is a reviewed snapshot (only `command`
//! and `args` differ), uninstall gives back the original bytes, a second install changes
//! nothing, and `--list` finds them all. Claude Code itself (`claude mcp add` in each scope,
//! then `claude mcp list`) is driven in scripts/check-proxy-clients.sh, run by .ci/run.

mod common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

/// A HOME and a project directory inside it, and mcpguard run from the project.
struct Machine {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
}

impl Machine {
    fn new() -> Machine {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().canonicalize().unwrap();
        let project = home.join("app");
        std::fs::create_dir_all(&project).unwrap();
        Machine {
            _dir: dir,
            home,
            project,
        }
    }

    fn mcpguard(&self, args: &[&str]) -> std::process::Output {
        self.mcpguard_in(&self.project, args)
    }

    fn mcpguard_in(&self, dir: &Path, args: &[&str]) -> std::process::Output {
        let mut cmd: Command = common::mcpguard_in(dir);
        for var in [
            "CLAUDE_CONFIG_DIR",
            "CODEX_HOME",
            "XDG_CONFIG_HOME",
            "APPDATA",
        ] {
            cmd.env_remove(var);
        }
        cmd.env("HOME", &self.home).args(args).output().unwrap()
    }

    fn write(&self, path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// The documented example of each client, where it keeps it (relative to HOME or the project).
fn examples(m: &Machine) -> Vec<(&'static str, PathBuf, String)> {
    let project = m.project.display().to_string();
    vec![
        (
            "claude-code",
            m.home.join(".claude.json"),
            // What `claude mcp add` (local scope) wrote, with Claude Code's other keys.
            format!(
                r#"{{
  "numStartups": 4,
  "projects": {{
    "{project}": {{
      "allowedTools": [],
      "mcpServers": {{
        "github": {{
          "type": "stdio",
          "command": "npx",
          "args": [
            "-y",
            "@modelcontextprotocol/server-github"
          ],
          "env": {{
            "GITHUB_TOKEN": "${{GITHUB_TOKEN}}"
          }}
        }}
      }},
      "hasTrustDialogAccepted": false
    }}
  }},
  "mcpServers": {{
    "time": {{
      "type": "stdio",
      "command": "uvx",
      "args": ["mcp-server-time"],
      "env": {{}}
    }}
  }}
}}
"#
            ),
        ),
        (
            "claude-desktop",
            m.home.join(".config/Claude/claude_desktop_config.json"),
            r#"{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/username/Desktop"]
    }
  }
}
"#
            .to_owned(),
        ),
        (
            "cursor",
            m.home.join(".cursor/mcp.json"),
            r#"{
  "mcpServers": {
    "server-name": {
      "command": "npx",
      "args": ["-y", "mcp-server"],
      "env": {
        "API_KEY": "value"
      }
    },
    "remote": {
      "url": "http://localhost:3000/mcp"
    }
  }
}
"#
            .to_owned(),
        ),
        (
            "vscode",
            m.project.join(".vscode/mcp.json"),
            r#"{
  // 💡 Inputs are prompted on first server start, then stored securely by VS Code.
  "inputs": [
    {
      "type": "promptString",
      "id": "perplexity-key",
      "description": "Perplexity API Key",
      "password": true
    }
  ],
  "servers": {
    // https://github.com/ppl-ai/modelcontextprotocol/
    "Perplexity": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "server-perplexity-ask"],
      "env": {
        "PERPLEXITY_API_KEY": "${input:perplexity-key}"
      }
    },
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/"
    },
  }
}
"#
            .to_owned(),
        ),
        (
            "codex",
            m.home.join(".codex/config.toml"),
            r#"model = "gpt-5-codex"

# MCP servers Codex starts
[mcp_servers.docs]
command = "npx"   # the launcher
args = ["-y", "mcp-server"]
env = { "API_KEY" = "value" }

[mcp_servers.figma]
url = "https://mcp.figma.com/mcp"
bearer_token_env_var = "FIGMA_OAUTH_TOKEN"
"#
            .to_owned(),
        ),
        (
            "gemini",
            m.home.join(".gemini/settings.json"),
            r#"{
  "theme": "GitHub",
  "mcpServers": {
    "pythonTools": {
      "command": "python",
      "args": ["-m", "my_mcp_server", "--port", "8080"],
      "cwd": "./mcp-servers/python",
      "env": {"DATABASE_URL": "$DB_CONNECTION_STRING"},
      "timeout": 15000
    },
    "httpServer": {
      "httpUrl": "http://localhost:3000/mcp"
    }
  }
}
"#
            .to_owned(),
        ),
        (
            "windsurf",
            m.home.join(".codeium/windsurf/mcp_config.json"),
            r#"{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "<YOUR_PERSONAL_ACCESS_TOKEN>"}
    },
    "remote-http-mcp": {
      "serverUrl": "https://your-server-url/mcp"
    }
  }
}
"#
            .to_owned(),
        ),
    ]
}

#[test]
fn each_client_file_changes_only_in_command_and_args_and_comes_back_whole() {
    let m = Machine::new();
    let examples = examples(&m);
    for (client, path, original) in &examples {
        m.write(path, original);
        let out = m.mcpguard(&["install", "--client", client, "--mcpguard", "mcpguard"]);
        assert_eq!(
            common::code(&out),
            0,
            "{client}: {}",
            common::transcript(&out)
        );
        let installed = std::fs::read_to_string(path).unwrap();
        common::settings(Some(&m.home)).bind(|| {
            insta::assert_snapshot!(format!("installed_{client}"), installed);
        });
        let backup = format!("{}.mcpguard-backup", path.display());
        assert_eq!(
            &std::fs::read_to_string(backup).unwrap(),
            original,
            "{client}"
        );

        let again = m.mcpguard(&["install", "--client", client, "--mcpguard", "mcpguard"]);
        assert!(
            String::from_utf8_lossy(&again.stdout).contains("nothing to change"),
            "{client}: {}",
            common::transcript(&again)
        );
        assert_eq!(
            std::fs::read_to_string(path).unwrap(),
            installed,
            "{client}: idempotent"
        );
    }

    // Every client found, with what is behind the proxy now.
    let listed = m.mcpguard(&["install", "--list", "--format", "json"]);
    assert_eq!(common::code(&listed), 0, "{}", common::transcript(&listed));
    let found: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let rows: Vec<String> = found
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| {
            let head = format!(
                "{} {}",
                f["client"].as_str().unwrap(),
                f["scope"].as_str().unwrap()
            );
            f["servers"].as_array().unwrap().iter().map(move |s| {
                format!(
                    "{head} {} remote={} proxied={}",
                    s["name"], s["remote"], s["proxied"]
                )
            })
        })
        .collect();
    assert_eq!(
        rows,
        [
            "claude-code local \"github\" remote=false proxied=true",
            "claude-code user \"time\" remote=false proxied=false",
            "claude-desktop user \"filesystem\" remote=false proxied=true",
            "cursor user \"server-name\" remote=false proxied=true",
            "cursor user \"remote\" remote=true proxied=true",
            "vscode project \"Perplexity\" remote=false proxied=true",
            "vscode project \"github\" remote=true proxied=true",
            "codex user \"docs\" remote=false proxied=true",
            "codex user \"figma\" remote=true proxied=false",
            "gemini user \"pythonTools\" remote=false proxied=true",
            "gemini user \"httpServer\" remote=true proxied=true",
            "windsurf user \"github\" remote=false proxied=true",
            "windsurf user \"remote-http-mcp\" remote=true proxied=true",
        ]
    );

    for (client, path, original) in &examples {
        let out = m.mcpguard(&["uninstall", "--client", client]);
        assert_eq!(
            common::code(&out),
            0,
            "{client}: {}",
            common::transcript(&out)
        );
        assert_eq!(
            &std::fs::read_to_string(path).unwrap(),
            original,
            "{client}: back whole"
        );
    }
}

#[test]
fn claude_codes_scopes_are_chosen_and_a_missing_config_says_where_it_looked() {
    let m = Machine::new();
    let (_, path, original) = examples(&m).remove(0);
    m.write(&path, &original);
    m.write(
        &m.project.join(".mcp.json"),
        "{\"mcpServers\": {\"shared\": {\"command\": \"uvx\", \"args\": [\"mcp-server-git\"]}}}\n",
    );
    // The default is the local scope: the project's own server only.
    let out = m.mcpguard(&[
        "install",
        "--client",
        "claude-code",
        "--mcpguard",
        "mcpguard",
        "--dry-run",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("github: now starts through mcpguard proxy"),
        "{text}"
    );
    assert!(
        !text.contains("time:") && !text.contains("shared:"),
        "{text}"
    );
    assert!(text.contains("not written (--dry-run)"));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        original,
        "a dry run writes nothing"
    );
    // All three scopes: two of them in one file, backed up once as it was before.
    let out = m.mcpguard(&[
        "install",
        "--client",
        "claude-code",
        "--scope",
        "all",
        "--mcpguard",
        "mcpguard",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    for server in ["github", "shared", "time"] {
        assert!(
            text.contains(&format!("{server}: now starts through mcpguard proxy")),
            "{text}"
        );
    }
    let backup = format!("{}.mcpguard-backup", path.display());
    assert_eq!(std::fs::read_to_string(backup).unwrap(), original);

    // In a subdirectory of a git repository, Claude Code files the local scope under the
    // repository's root: so does install.
    let m = Machine::new();
    let (_, path, original) = examples(&m).remove(0);
    m.write(&path, &original);
    std::fs::create_dir_all(m.project.join(".git")).unwrap();
    std::fs::create_dir_all(m.project.join("web")).unwrap();
    let out = m.mcpguard_in(
        &m.project.join("web"),
        &["install", "--client", "claude-code", "--dry-run"],
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("github: now starts through mcpguard proxy"),
        "{}",
        common::transcript(&out)
    );

    let elsewhere = Machine::new();
    let out = elsewhere.mcpguard(&["install", "--client", "cursor"]);
    assert_eq!(common::code(&out), 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cursor: no config found; looked at") && err.contains(".cursor/mcp.json"),
        "{err}"
    );
    let out = elsewhere.mcpguard(&["install", "--client", "windsurf", "--scope", "project"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("windsurf has no project scope"));
}

#[test]
fn install_gateway_puts_a_lists_servers_behind_one_entry_and_uninstall_brings_them_back() {
    let m = Machine::new();
    let fixture = common::live::fixture();
    let fixture = fixture.to_str().unwrap();
    let original = format!(
        "{{\n  \"mcpServers\": {{\n    \"alpha\": {{\"command\": \"{fixture}\", \"args\": []}},\n    \"beta\": {{\n      \"command\": \"{fixture}\",\n      \"args\": [\"--era\", \"legacy\"]\n    }},\n    \"gamma\": {{\"command\": \"{fixture}\"}}\n  }}\n}}\n"
    );
    let file = m.project.join(".mcp.json");
    std::fs::write(&file, &original).unwrap();
    let out = m.mcpguard(&["install", "--gateway"]);
    assert!(out.status.success(), "{}", common::transcript(&out));
    let installed: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let servers = installed["mcpServers"].as_object().unwrap();
    assert_eq!(servers.keys().collect::<Vec<_>>(), ["mcpguard"]);
    let args: Vec<&str> = servers["mcpguard"]["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(args[..2], ["proxy", "--mcp-config"]);
    // Claude Code names a tool `mcp__mcpguard__` + the gateway's name, and cuts nothing: the
    // gateway's names leave room for those 15 characters within 64.
    assert_eq!(
        servers["mcpguard"]["env"],
        serde_json::json!({"MCPGUARD_MAX_TOOL_NAME_LENGTH": "49"})
    );
    let kept = PathBuf::from(args[2]);
    assert!(
        kept.starts_with(m.home.join(".config/mcpguard/gateways")),
        "{kept:?}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&kept), 0o600);
        assert_eq!(mode(kept.parent().unwrap()), 0o700);
    }
    // The entry runs the gateway over the three servers.
    let gateway: Value = serde_json::from_str(&std::fs::read_to_string(&kept).unwrap()).unwrap();
    let names: Vec<&String> = gateway["mcpServers"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["alpha", "beta", "gamma"]);
    let listed = m.mcpguard(&[
        "proxy",
        "--mcp-config",
        kept.to_str().unwrap(),
        "--catalog-cache",
        m.home.join("catalogs").to_str().unwrap(),
        "--status",
    ]);
    let shown = String::from_utf8_lossy(&listed.stdout);
    for server in ["alpha", "beta", "gamma"] {
        assert!(shown.contains(server), "{shown}");
    }
    // A second install changes nothing; uninstall gives the file back byte for byte.
    let again = m.mcpguard(&["install", "--gateway"]);
    assert!(String::from_utf8_lossy(&again.stdout).contains("already behind the gateway"));
    let out = m.mcpguard(&["uninstall"]);
    assert!(out.status.success(), "{}", common::transcript(&out));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), original);
    assert!(!kept.exists());

    // A file its client changed meanwhile: the servers go back where the entry was, in their
    // order, and the client's change stays.
    m.mcpguard(&["install", "--gateway", "--name", "alpha", "--name", "beta"]);
    let text = std::fs::read_to_string(&file).unwrap();
    let changed = text.replace(
        "\"gamma\"",
        "\"delta\": {\"command\": \"added-later\"},\n    \"gamma\"",
    );
    std::fs::write(&file, &changed).unwrap();
    let out = m.mcpguard(&["uninstall"]);
    assert!(out.status.success(), "{}", common::transcript(&out));
    let back: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let keys: Vec<&String> = back["mcpServers"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["alpha", "beta", "delta", "gamma"]);
    let before: Value = serde_json::from_str(&original).unwrap();
    assert_eq!(back["mcpServers"]["beta"], before["mcpServers"]["beta"]);
}
