//! The tier plan of a whole catalog (what `audit --mcp-config` prints): the texts a client
//! of the tiered gateway would get at each of seed 004's tiers, made by the same code that
//! answers them, and counted exactly. T0 is the config's hot tools within `maxCatalogTokens`
//! and mcpguard's four tools; T1 the category overview; T2 the first page of the largest
//! category's summaries (at 50 a page, seed 004's `LIMIT 50`); T3 the definitions of the ten
//! largest tools, as `mcpguard_describe_tools` returns them.

use std::collections::HashMap;

use serde_json::Value;

use crate::config::Config;
use crate::contract::telemetry::MORE_TOOL;
use crate::contract::tiers::{BUDGETS, Tier, TierPlan};
use crate::tokens::TokenCounter;

use super::super::{more, names};
use super::lookup::{self, Lookup, Request};
use super::{
    Definitions, MAX_DESCRIBED, Usage, call_definition, categories, describe_definition,
    find_definition, server_of,
};

const FIND: &str = "mcpguard_find_tools";
const DESCRIBE: &str = "mcpguard_describe_tools";
const CALL: &str = "mcpguard_call_tool";

/// The plan of the catalog the gateway would make of these servers (each its config key and
/// its tools as it listed them): every tool renamed `SERVER__TOOL` as the gateway names it.
pub fn of_servers(
    servers: &[(&str, Vec<Value>)],
    config: &Config,
    exact: &dyn TokenCounter,
) -> TierPlan {
    let max = usize::try_from(config.max_tool_name_length).unwrap_or(64);
    let catalog: Vec<Value> = servers
        .iter()
        .flat_map(|(key, tools)| {
            let part = names::server_part(key);
            tools.iter().map(move |tool| {
                let mut tool = tool.clone();
                let original = tool
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                tool["name"] = Value::from(names::exposed(&part, key, &original, max));
                tool
            })
        })
        .collect();
    plan(&catalog, servers.len(), config, exact)
}

/// The plan of `catalog` (every tool as the gateway lists it, `SERVER__TOOL`) under
/// `config` (its hot tools, categories and budgets), counted by `exact`.
pub fn plan(
    catalog: &[Value],
    servers: usize,
    config: &Config,
    exact: &dyn TokenCounter,
) -> TierPlan {
    let categories = &categories(config);
    let count = |value: &Value| exact.count(&value.to_string()) as u64;
    let name = |tool: &Value| {
        tool.get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let full_tokens = count(&Value::Array(catalog.to_vec()));

    let usage = Usage::default();
    let names: Vec<String> = catalog.iter().map(name).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let by_name: HashMap<&str, &Value> = refs.iter().copied().zip(catalog).collect();
    let hot_tools = usage.hot_within(
        &refs,
        &config.hot,
        config.catalog_hot_tools as usize,
        config.limits.max_catalog_tokens,
        |n| by_name.get(n).map_or(0, |t| count(t)),
    );
    let mut listed: Vec<Value> = hot_tools.iter().map(|n| by_name[n].clone()).collect();
    listed.extend([
        more::definition(MORE_TOOL),
        find_definition(FIND, DESCRIBE),
        describe_definition(DESCRIBE),
        call_definition(CALL),
    ]);
    let t0 = count(&Value::Array(listed));

    let definitions = Definitions::of(catalog);
    let ranker = lookup::ranker(&definitions, categories);
    let look = Lookup {
        tools: &definitions,
        ranker: &ranker,
        usage: &usage,
        categories,
        find_tool: FIND,
        describe_tool: DESCRIBE,
    };
    let text_tokens = |text: &str| exact.count(text) as u64;
    let overview = look.answer(&Request::default()).unwrap_or_default();
    let t1 = text_tokens(&overview);

    // Categories in the catalog's order; the largest, the first of equals.
    let mut sizes: Vec<(&str, usize)> = Vec::new();
    for tool in &refs {
        let part = server_of(tool).unwrap_or("");
        let category = categories.get(part).map_or(part, String::as_str);
        match sizes.iter_mut().find(|(c, _)| *c == category) {
            Some((_, n)) => *n += 1,
            None => sizes.push((category, 1)),
        }
    }
    let largest = sizes
        .iter()
        .fold(None::<(&str, usize)>, |best, &(c, n)| match best {
            Some((_, m)) if m >= n => best,
            _ => Some((c, n)),
        })
        .map(|(c, n)| (c.to_owned(), n));
    let (t2, t2_holds) = match &largest {
        Some((category, n)) => {
            let page = look
                .answer(&Request {
                    category: Some(category).filter(|c| !c.is_empty()).map(String::as_str),
                    server: None,
                    limit: 50,
                    ..Request::default()
                })
                .unwrap_or_default();
            let shown = if category.is_empty() {
                "the server's"
            } else {
                category.as_str()
            };
            (
                text_tokens(&page),
                format!("+ the largest category's summaries ({shown}, {n} tools; first page)"),
            )
        }
        None => (0, "+ no category".to_owned()),
    };

    let mut heaviest: Vec<&Value> = catalog.iter().collect();
    heaviest.sort_by_key(|t| std::cmp::Reverse(count(t)));
    heaviest.truncate(MAX_DESCRIBED);
    let described: Vec<Value> = heaviest.iter().map(|t| (*t).clone()).collect();
    let t3 = text_tokens(&serde_json::to_string_pretty(&described).unwrap_or_default());

    let holds = [
        format!("{} hot tools and mcpguard's 4 tools", hot_tools.len()),
        "+ the category overview".to_owned(),
        t2_holds,
        format!("+ the {} largest definitions", described.len()),
    ];
    let mut total = 0;
    let tiers = BUDGETS
        .iter()
        .zip(holds)
        .zip([t0, t1, t2, t3])
        .map(|(((tier, budget), holds), added)| {
            total += added;
            Tier {
                tier,
                holds,
                added,
                tokens: total,
                budget: *budget,
            }
        })
        .collect();
    TierPlan {
        servers,
        tools: catalog.len(),
        full_tokens,
        tiers,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::tokens::Tokenizer;

    #[test]
    fn a_plan_adds_each_tier_to_the_last_and_holds_the_configs_hot_tools() {
        let catalog: Vec<Value> = (0..40)
            .map(|i| {
                json!({"name": format!("s{}__tool_{i}", i % 4),
                       "description": "Does a thing to the workspace. ".repeat(1 + i % 5),
                       "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}}})
            })
            .collect();
        let config: Config = serde_json::from_value(json!({
            "hot": ["s0__tool_0"],
            "servers": {"s1": {"category": "code"}, "s2": {"category": "code"}}
        }))
        .unwrap();
        let plan = plan(&catalog, 4, &config, Tokenizer::Claude.counter());
        assert_eq!((plan.servers, plan.tools), (4, 40));
        let tiers = &plan.tiers;
        assert_eq!(
            tiers.iter().map(|t| t.tier).collect::<Vec<_>>(),
            ["T0", "T1", "T2", "T3"]
        );
        assert_eq!(tiers[0].holds, "1 hot tools and mcpguard's 4 tools");
        assert_eq!(
            tiers[2].holds,
            "+ the largest category's summaries (code, 20 tools; first page)"
        );
        for pair in tiers.windows(2) {
            assert_eq!(pair[1].tokens, pair[0].tokens + pair[1].added);
        }
        assert!(tiers.iter().all(|t| t.added > 0 && t.within()), "{tiers:?}");
        assert!(plan.full_tokens > tiers[0].tokens, "{plan:?}");
    }
}
