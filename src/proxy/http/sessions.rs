//! The children of `proxy --listen` in front of a command: one per 2025-11-25 session (made by
//! its `initialize`, ended by DELETE, its exit, [`SESSION_IDLE`] without a request, or as the
//! least recently used past [`MAX_SESSIONS`]) and one shared by stateless 2026-07-28 requests.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use crate::proxy::policy::{Level, Log};

use super::child::{Child, GRACE, Routes};
use super::pump::read;
use super::{App, lock};

/// How long a session's child lives without a request.
pub const SESSION_IDLE: Duration = Duration::from_secs(30 * 60);

/// Sessions (children) at once; a new one beyond ends the least recently used (many clients
/// never send DELETE).
pub const MAX_SESSIONS: usize = 256;

/// The children of one proxy.
pub(super) struct Children {
    pub(super) command: Vec<String>,
    pub(super) env: BTreeMap<String, String>,
    pub(super) shown: String,
    pub(super) shared: tokio::sync::Mutex<Option<Arc<Child>>>,
    pub(super) sessions: Mutex<HashMap<String, Arc<Child>>>,
    /// Readers still running, so a stop can wait for every child to be reaped.
    pub(super) running: Arc<()>,
}

impl Children {
    pub(super) fn new(
        command: Vec<String>,
        env: BTreeMap<String, String>,
        shown: String,
    ) -> Children {
        Children {
            command,
            env,
            shown,
            shared: tokio::sync::Mutex::new(None),
            sessions: Mutex::new(HashMap::new()),
            running: Arc::new(()),
        }
    }

    pub(super) fn shown(&self) -> &str {
        &self.shown
    }

    /// Whether the command can be found, so that a typo fails at the start and not at the
    /// first client's request.
    pub(super) fn check(&self) -> Result<(), String> {
        let Some(program) = self.command.first() else {
            return Err("the server's command is empty".to_owned());
        };
        let path = std::path::Path::new(program);
        let found = if path.components().count() > 1 {
            path.is_file()
        } else {
            std::env::var_os("PATH")
                .is_some_and(|dirs| std::env::split_paths(&dirs).any(|d| d.join(path).is_file()))
        };
        if found {
            Ok(())
        } else {
            Err(format!(
                "cannot start the server `{}`: `{program}` is not found; is it installed and on PATH?",
                self.shown
            ))
        }
    }

    pub(super) fn session(&self, id: &str, scope: &str) -> Option<Arc<Child>> {
        lock(&self.sessions)
            .get(id)
            .filter(|c| c.scope == scope)
            .cloned()
    }

    /// The shared child, started when there is none.
    pub(super) async fn shared(&self, app: &Arc<App>) -> Result<Arc<Child>, String> {
        let mut shared = self.shared.lock().await;
        if let Some(child) = shared.as_ref()
            && lock(&child.routes).gone.is_none()
        {
            return Ok(child.clone());
        }
        let child = self.start(app, None, String::new())?;
        *shared = Some(child.clone());
        Ok(child)
    }

    /// A new session and its child.
    pub(super) fn start_session(
        &self,
        app: &Arc<App>,
        scope: &str,
    ) -> Result<(String, Arc<Child>), String> {
        let evicted = {
            let mut sessions = lock(&self.sessions);
            let oldest = (sessions.len() >= MAX_SESSIONS)
                .then(|| {
                    sessions
                        .iter()
                        .min_by_key(|(_, c)| *lock(&c.last_used))
                        .map(|(id, _)| id.clone())
                })
                .flatten();
            oldest.and_then(|id| sessions.remove(&id))
        };
        if let Some(child) = evicted {
            app.log(
                &Log::new(
                    Level::Info,
                    format!("{MAX_SESSIONS} sessions are open: the least recently used one ends to make room (its client starts a new one)"),
                )
                .with("server", child.label.clone()),
            );
            child.end();
        }
        // 128 random bits.
        let id = crate::util::random::random_hex(16)
            .map_err(|e| format!("cannot make a session id: /dev/urandom: {e}"))?;
        let child = self.start(app, Some(id.clone()), scope.to_owned())?;
        lock(&self.sessions).insert(id.clone(), child.clone());
        Ok((id, child))
    }

    pub(super) fn end_session(&self, id: &str, scope: &str) -> bool {
        let mut sessions = lock(&self.sessions);
        if sessions.get(id).is_none_or(|c| c.scope != scope) {
            return false;
        }
        if let Some(child) = sessions.remove(id) {
            child.end();
        }
        true
    }

    /// Ends the sessions idle for longer than `idle`; returns how many.
    pub(super) fn end_idle(&self, idle: Duration) -> usize {
        let now = Instant::now();
        let mut sessions = lock(&self.sessions);
        let idle_ids: Vec<String> = sessions
            .iter()
            .filter(|(_, c)| now.duration_since(*lock(&c.last_used)) > idle)
            .map(|(id, _)| id.clone())
            .collect();
        for id in &idle_ids {
            if let Some(child) = sessions.remove(id) {
                child.end();
            }
        }
        idle_ids.len()
    }

    /// Ends every child and waits up to twice the grace period for them to be reaped.
    pub(super) async fn end_all(&self) {
        let children: Vec<Arc<Child>> = lock(&self.sessions).drain().map(|(_, c)| c).collect();
        for c in children
            .iter()
            .chain(self.shared.lock().await.take().iter())
        {
            c.end();
        }
        let until = Instant::now() + 2 * GRACE;
        while Arc::strong_count(&self.running) > 1 && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Starts a child and its reader.
    pub(super) fn start(
        &self,
        app: &Arc<App>,
        session: Option<String>,
        scope: String,
    ) -> Result<Arc<Child>, String> {
        let Some(command) = crate::proxy::launch::server_process(&self.command, &self.env) else {
            return Err("the server's command is empty".to_owned());
        };
        let mut process = tokio::process::Command::from(command)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                let hint = if e.kind() == std::io::ErrorKind::NotFound {
                    "; is it installed and on PATH?"
                } else {
                    ""
                };
                format!("cannot start the server `{}`: {e}{hint}", self.shown)
            })?;
        if let Some(pid) = process.id() {
            crate::proxy::launch::watch(pid);
        }
        let (Some(stdin), Some(stdout)) = (process.stdin.take(), process.stdout.take()) else {
            return Err("the server's pipes could not be opened".to_owned());
        };
        let label = match &session {
            Some(id) => format!("session {}", &id[..8.min(id.len())]),
            None => "shared".to_owned(),
        };
        app.log(
            &Log::new(
                Level::Info,
                format!("started the server `{}` ({label})", self.shown),
            )
            .with("pid", process.id().unwrap_or(0)),
        );
        let child = Arc::new(Child {
            label,
            session,
            scope,
            stdin: tokio::sync::Mutex::new(Some(stdin)),
            routes: Mutex::new(Routes::default()),
            next_id: AtomicU64::new(1),
            last_used: Mutex::new(Instant::now()),
            ending: std::sync::atomic::AtomicBool::new(false),
            kill: Notify::new(),
        });
        let running = self.running.clone();
        let (app, watched) = (app.clone(), child.clone());
        tokio::spawn(async move {
            let _running = running;
            let how = read(app.clone(), watched.clone(), process, stdout).await;
            ended(&app, &watched, &how).await;
        });
        Ok(child)
    }

    /// The child is gone: out of the session table or the shared place.
    pub(super) async fn forget_child(&self, child: &Arc<Child>) {
        match &child.session {
            Some(id) => {
                let mut sessions = lock(&self.sessions);
                if sessions.get(id).is_some_and(|c| Arc::ptr_eq(c, child)) {
                    sessions.remove(id);
                }
            }
            None => {
                let mut shared = self.shared.lock().await;
                if shared.as_ref().is_some_and(|c| Arc::ptr_eq(c, child)) {
                    *shared = None;
                }
            }
        }
    }
}

/// A child has ended (`how`, as [`read`] found it): out of the table, and said in the log.
async fn ended(app: &Arc<App>, child: &Arc<Child>, how: &str) {
    if let Some(children) = app.children() {
        children.forget_child(child).await;
    }
    let level = if child.ending.load(Ordering::SeqCst) {
        Level::Info
    } else {
        Level::Warn
    };
    app.log(
        &Log::new(
            level,
            format!(
                "the server `{}` ({}) {how}",
                app.children().map_or("", Children::shown),
                child.label
            ),
        )
        .with("server", child.label.clone()),
    );
}
