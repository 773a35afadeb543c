//! `subscriptions/listen` (2026-07-28, basic/patterns/subscriptions): how a client of that era
//! hears that a list changed. The gateway answers it itself, for all its servers: the request
//! stays open, `notifications/subscriptions/acknowledged` comes first with what is honoured,
//! and every list change after it carries the subscription's id in `_meta`, until the client
//! cancels. A 2025-11-25 client (one that sent `initialize`) hears list changes unsolicited.
//! Resource subscriptions are not honoured (the acknowledgment leaves them out, as the spec
//! says a server does for what it does not support).

use std::collections::HashMap;

use serde_json::{Value, json};

use super::super::stdio::lock;
use super::Gateway;

/// The `_meta` key naming the subscription a notification belongs to.
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// What a subscription asked to hear, of what the gateway can say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    tools: bool,
    prompts: bool,
    resources: bool,
}

impl Filter {
    /// The list changes a `subscriptions/listen` request's `notifications` asks for.
    pub fn of(notifications: &Value) -> Filter {
        let on = |key: &str| notifications.get(key).and_then(Value::as_bool) == Some(true);
        Filter {
            tools: on("toolsListChanged"),
            prompts: on("promptsListChanged"),
            resources: on("resourcesListChanged"),
        }
    }

    /// The filter as the acknowledgment states it: only what was asked and is honoured.
    fn acknowledged(self) -> Value {
        let mut out = serde_json::Map::new();
        for (on, key) in [
            (self.tools, "toolsListChanged"),
            (self.prompts, "promptsListChanged"),
            (self.resources, "resourcesListChanged"),
        ] {
            if on {
                out.insert(key.into(), Value::Bool(true));
            }
        }
        Value::Object(out)
    }

    /// Whether a subscription hears this list-change notification.
    fn hears(self, method: &str) -> bool {
        match method {
            "notifications/tools/list_changed" => self.tools,
            "notifications/prompts/list_changed" => self.prompts,
            "notifications/resources/list_changed" => self.resources,
            _ => false,
        }
    }
}

/// The open subscriptions, by the id (canonical JSON) of the request that opened each.
pub type Subscriptions = HashMap<String, Filter>;

impl Gateway {
    /// Opens a subscription: acknowledged at once, its request left open.
    pub(super) fn listen(&self, raw_id: &str, params: &Value) {
        let filter = Filter::of(&params["notifications"]);
        lock(&self.subscriptions).insert(raw_id.to_owned(), filter);
        let id: Value = serde_json::from_str(raw_id).unwrap_or(Value::Null);
        let ack = json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
            "params": {"_meta": {SUBSCRIPTION_ID: id}, "notifications": filter.acknowledged()}});
        self.send(ack.to_string().as_bytes());
    }

    /// Ends a subscription the client cancelled; false when `raw_id` is not one.
    pub(super) fn unlisten(&self, raw_id: &str) -> bool {
        lock(&self.subscriptions).remove(raw_id).is_some()
    }

    /// Tells the client a list changed: on each subscription that asked for it, and
    /// unsolicited to a 2025-11-25 client.
    pub(super) fn list_changed(&self, method: &str) {
        let hearing: Vec<String> = lock(&self.subscriptions)
            .iter()
            .filter(|(_, f)| f.hears(method))
            .map(|(id, _)| id.clone())
            .collect();
        for id in hearing {
            let id: Value = serde_json::from_str(&id).unwrap_or(Value::Null);
            let line = json!({"jsonrpc": "2.0", "method": method,
                "params": {"_meta": {SUBSCRIPTION_ID: id}}});
            self.send(line.to_string().as_bytes());
        }
        if self.legacy_client.load(std::sync::atomic::Ordering::SeqCst) {
            self.send(
                json!({"jsonrpc": "2.0", "method": method})
                    .to_string()
                    .as_bytes(),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_honours_the_list_changes_it_asked_for_and_no_more() {
        let f = Filter::of(
            &json!({"toolsListChanged": true, "promptsListChanged": false,
            "resourceSubscriptions": ["file:///x"]}),
        );
        assert!(f.hears("notifications/tools/list_changed"));
        assert!(!f.hears("notifications/prompts/list_changed"));
        assert!(!f.hears("notifications/resources/updated"));
        assert_eq!(f.acknowledged(), json!({"toolsListChanged": true}));
        assert_eq!(Filter::of(&Value::Null).acknowledged(), json!({}));
    }
}
