//! What one event makes the proxy do: messages to send and where, log lines, records.

use serde_json::Value;

use super::record::Record;

/// Where a message goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    Client(Vec<u8>),
    Server(Vec<u8>),
}

/// How loud a log line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Info,
    Warn,
    Error,
}

/// A log line: a message and fields for `--log-format json`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Log {
    pub level: Level,
    pub message: String,
    #[serde(flatten)]
    pub fields: serde_json::Map<String, Value>,
}

impl Log {
    pub fn new(level: Level, message: impl Into<String>) -> Log {
        Log {
            level,
            message: message.into(),
            fields: serde_json::Map::new(),
        }
    }

    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Log {
        self.fields.insert(key.to_owned(), value.into());
        self
    }
}

/// What one event makes the proxy do.
#[derive(Debug, Default)]
pub struct Effects {
    pub sends: Vec<Route>,
    pub logs: Vec<Log>,
    pub records: Vec<Record>,
}
