//! Where each MCP client keeps its servers, by scope, as each client documents it (the README
//! says which version of each): the file and the [`Layout`] of the servers in it. Pure: the
//! home directory, the working directory and the variables that move a client's files come in
//! as [`Places`]; the CLI fills them from the environment.

use std::path::PathBuf;

use super::edit::Layout;

/// The clients `mcpguard install --client` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Client {
    ClaudeCode,
    ClaudeDesktop,
    Cursor,
    Vscode,
    Codex,
    Gemini,
    Windsurf,
}

impl Client {
    pub const ALL: [Client; 7] = [
        Client::ClaudeCode,
        Client::ClaudeDesktop,
        Client::Cursor,
        Client::Vscode,
        Client::Codex,
        Client::Gemini,
        Client::Windsurf,
    ];

    pub fn parse(name: &str) -> Option<Client> {
        Client::ALL.into_iter().find(|c| c.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::ClaudeDesktop => "claude-desktop",
            Client::Cursor => "cursor",
            Client::Vscode => "vscode",
            Client::Codex => "codex",
            Client::Gemini => "gemini",
            Client::Windsurf => "windsurf",
        }
    }
}

/// Which of a client's server lists: Claude Code's three scopes (`claude mcp add --scope`), and
/// for the others their user-wide and their project file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// Claude Code's default: this project's servers in ~/.claude.json, yours alone.
    Local,
    /// Every project of yours.
    User,
    /// The project's file, shared with the repository.
    Project,
    /// Every scope the client has.
    All,
}

impl Scope {
    pub const ALL: [Scope; 4] = [Scope::Local, Scope::User, Scope::Project, Scope::All];

    pub fn parse(name: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|s| s.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Scope::Local => "local",
            Scope::User => "user",
            Scope::Project => "project",
            Scope::All => "all",
        }
    }
}

/// What locates the files: the home directory, the project (working) directory, the OS, and
/// the variables that move a client's files.
#[derive(Clone, Debug)]
pub struct Places {
    pub home: PathBuf,
    pub cwd: PathBuf,
    /// The project Claude Code files this directory's local-scope servers under: the root of
    /// the git repository around `cwd`, else `cwd` itself (as Claude Code 2.1 keys
    /// `projects` in ~/.claude.json; its project-scope `.mcp.json` is in `cwd`).
    pub project_root: PathBuf,
    pub os: Os,
    /// `CLAUDE_CONFIG_DIR`: Claude Code's ~/.claude.json lives there instead.
    pub claude_config_dir: Option<PathBuf>,
    /// `CODEX_HOME`: Codex's ~/.codex instead.
    pub codex_home: Option<PathBuf>,
    /// `XDG_CONFIG_HOME` (Linux), `APPDATA` (Windows).
    pub xdg_config_home: Option<PathBuf>,
    pub appdata: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Os {
    Linux,
    MacOs,
    Windows,
}

/// One server list: whose, which scope, which file, where in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub client: Client,
    pub scope: Scope,
    pub path: PathBuf,
    pub layout: Layout,
}

fn servers_at(keys: &[&str]) -> Layout {
    Layout::Json(keys.iter().map(|k| (*k).to_owned()).collect())
}

impl Places {
    /// A desktop app's per-user config directory: ~/Library/Application Support, %APPDATA%,
    /// $XDG_CONFIG_HOME or ~/.config.
    fn app_config(&self) -> PathBuf {
        match self.os {
            Os::MacOs => self.home.join("Library/Application Support"),
            Os::Windows => self
                .appdata
                .clone()
                .unwrap_or_else(|| self.home.join("AppData/Roaming")),
            Os::Linux => self
                .xdg_config_home
                .clone()
                .unwrap_or_else(|| self.home.join(".config")),
        }
    }

    /// Every server list of `client` in `scope` (`All`: each of its scopes), in the order a
    /// person would look: the most local first.
    pub fn locations(&self, client: Client, scope: Scope) -> Vec<Location> {
        let cwd = &self.cwd;
        let mut out: Vec<(Scope, PathBuf, Layout)> = Vec::new();
        let mcp_servers = || servers_at(&["mcpServers"]);
        match client {
            Client::ClaudeCode => {
                let claude_json = self
                    .claude_config_dir
                    .clone()
                    .unwrap_or_else(|| self.home.clone())
                    .join(".claude.json");
                let project = self.project_root.display().to_string();
                out.push((
                    Scope::Local,
                    claude_json.clone(),
                    servers_at(&["projects", &project, "mcpServers"]),
                ));
                out.push((Scope::Project, cwd.join(".mcp.json"), mcp_servers()));
                out.push((Scope::User, claude_json, mcp_servers()));
            }
            Client::ClaudeDesktop => out.push((
                Scope::User,
                self.app_config().join("Claude/claude_desktop_config.json"),
                mcp_servers(),
            )),
            Client::Cursor => {
                out.push((Scope::Project, cwd.join(".cursor/mcp.json"), mcp_servers()));
                out.push((
                    Scope::User,
                    self.home.join(".cursor/mcp.json"),
                    mcp_servers(),
                ));
            }
            Client::Vscode => {
                let servers = || servers_at(&["servers"]);
                out.push((Scope::Project, cwd.join(".vscode/mcp.json"), servers()));
                let user = self.app_config().join("Code/User/mcp.json");
                out.push((Scope::User, user, servers()));
            }
            Client::Codex => {
                let table = || Layout::Toml("mcp_servers".to_owned());
                out.push((Scope::Project, cwd.join(".codex/config.toml"), table()));
                let home = self
                    .codex_home
                    .clone()
                    .unwrap_or_else(|| self.home.join(".codex"));
                out.push((Scope::User, home.join("config.toml"), table()));
            }
            Client::Gemini => {
                out.push((
                    Scope::Project,
                    cwd.join(".gemini/settings.json"),
                    mcp_servers(),
                ));
                out.push((
                    Scope::User,
                    self.home.join(".gemini/settings.json"),
                    mcp_servers(),
                ));
            }
            Client::Windsurf => out.push((
                Scope::User,
                self.home.join(".codeium/windsurf/mcp_config.json"),
                mcp_servers(),
            )),
        }
        out.into_iter()
            .filter(|(s, _, _)| scope == Scope::All || *s == scope)
            .map(|(scope, path, layout)| Location {
                client,
                scope,
                path,
                layout,
            })
            .collect()
    }
}

/// The scope `install --client` takes when none is given: Claude Code's own default (local,
/// as `claude mcp add` has it); every scope for the others.
pub fn default_scope(client: Client) -> Scope {
    match client {
        Client::ClaudeCode => Scope::Local,
        _ => Scope::All,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places() -> Places {
        Places {
            home: "/home/u".into(),
            cwd: "/home/u/app".into(),
            project_root: "/home/u/app".into(),
            os: Os::Linux,
            claude_config_dir: None,
            codex_home: None,
            xdg_config_home: None,
            appdata: None,
        }
    }

    #[test]
    fn claude_code_has_three_scopes_where_claude_mcp_add_puts_them() {
        let p = places();
        let all = p.locations(Client::ClaudeCode, Scope::All);
        let shown: Vec<(&str, String, String)> = all
            .iter()
            .map(|l| {
                (
                    l.scope.name(),
                    l.path.display().to_string(),
                    l.layout.shown(),
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                (
                    "local",
                    "/home/u/.claude.json".into(),
                    "projects[\"/home/u/app\"].mcpServers".into()
                ),
                (
                    "project",
                    "/home/u/app/.mcp.json".into(),
                    "mcpServers".into()
                ),
                ("user", "/home/u/.claude.json".into(), "mcpServers".into()),
            ]
        );
        let moved = Places {
            claude_config_dir: Some("/cfg".into()),
            ..places()
        };
        // In a subdirectory of a git repository: the local scope is the repository's.
        let deeper = Places {
            cwd: "/home/u/app/web".into(),
            ..places()
        };
        let deeper = deeper.locations(Client::ClaudeCode, Scope::All);
        assert_eq!(
            deeper[0].layout.shown(),
            "projects[\"/home/u/app\"].mcpServers"
        );
        assert_eq!(deeper[1].path, PathBuf::from("/home/u/app/web/.mcp.json"));
        assert_eq!(
            moved.locations(Client::ClaudeCode, Scope::User)[0].path,
            PathBuf::from("/cfg/.claude.json")
        );
    }

    #[test]
    fn every_client_has_its_files() {
        let p = places();
        let user = |c| p.locations(c, Scope::User)[0].path.display().to_string();
        assert_eq!(
            user(Client::ClaudeDesktop),
            "/home/u/.config/Claude/claude_desktop_config.json"
        );
        assert_eq!(user(Client::Cursor), "/home/u/.cursor/mcp.json");
        assert_eq!(user(Client::Vscode), "/home/u/.config/Code/User/mcp.json");
        assert_eq!(user(Client::Codex), "/home/u/.codex/config.toml");
        assert_eq!(user(Client::Gemini), "/home/u/.gemini/settings.json");
        assert_eq!(
            user(Client::Windsurf),
            "/home/u/.codeium/windsurf/mcp_config.json"
        );
        let vscode = p.locations(Client::Vscode, Scope::Project);
        assert_eq!(vscode[0].layout, servers_at(&["servers"]));
        assert_eq!(
            p.locations(Client::Codex, Scope::Project)[0].layout,
            Layout::Toml("mcp_servers".into())
        );
        assert!(p.locations(Client::Windsurf, Scope::Project).is_empty());
        let mac = Places {
            os: Os::MacOs,
            ..places()
        };
        assert_eq!(
            mac.locations(Client::ClaudeDesktop, Scope::User)[0].path,
            PathBuf::from("/home/u/Library/Application Support/Claude/claude_desktop_config.json")
        );
    }
}
