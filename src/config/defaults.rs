//! The documented default config that `validate-config --print-defaults` writes: every key
//! with its default value and a comment saying what it does and which variable sets it.

use super::Config;

/// The documented default config, as YAML with a comment on every key.
pub fn default_yaml() -> String {
    let c = Config::default();
    let l = &c.limits;
    let mut out = String::from(
        "# mcpguard configuration: every key below is the built-in default.\n\
         # Precedence: flags > MCPGUARD_* environment > this file > defaults.\n\
         # Schema: contracts/config.schema.json. Check a file with `mcpguard validate-config FILE`.\n\n",
    );
    // The variable that sets a key comes from the environment layer's own table.
    let mut line = |key: &str, value: String, comment: &str| {
        let env = super::env::variable_for(&format!("/{key}"))
            .map_or(String::new(), |var| format!("; env {var}"));
        out.push_str(&format!("{key}: {value}  # {comment}{env}\n"));
    };
    line(
        "defaultPageSize",
        c.default_page_size.to_string(),
        "items per page when no limit is given (FR-002)",
    );
    line(
        "maxPageSize",
        c.max_page_size.to_string(),
        "largest page a caller may ask for, at most 200",
    );
    line(
        "tokenBudgetThreshold",
        c.token_budget_threshold.to_string(),
        "summarize above this many tokens (FR-010)",
    );
    line(
        "hardCap",
        c.hard_cap.to_string(),
        "no response above this many tokens, >= tokenBudgetThreshold",
    );
    line(
        "chunkSize",
        c.chunk_size.to_string(),
        "tokens per chunk (FR-020)",
    );
    line(
        "chunkMaxLines",
        c.chunk_max_lines.to_string(),
        "lines per chunk",
    );
    line(
        "chunkWholeBelow",
        c.chunk_whole_below.to_string(),
        "content under this many tokens comes back whole (US4.4)",
    );
    line(
        "cursorTtlSeconds",
        c.cursor_ttl_seconds.to_string(),
        "cursor lifetime (FR-007)",
    );
    line(
        "tokenizer",
        c.tokenizer.name().to_owned(),
        "auto | claude | claude-v3 | claude-fast | claude-legacy | heuristic | o200k | cl100k",
    );
    line(
        "mediaTokens",
        c.media_tokens.to_string(),
        "tokens for audio, PDFs and images not counted by their pixels",
    );
    line(
        "artifactDir",
        c.artifact_dir.clone(),
        "where full results are stored",
    );
    line(
        "catalog",
        "full".to_owned(),
        "mcpguard proxy's tools/list: full | trim (cut long descriptions, schema boilerplate) | tiered (hot tools + find/describe/call) | auto (full for Claude Code or within catalogBudget, else tiered; the gateway's default)",
    );
    line(
        "catalogBudget",
        c.catalog_budget.to_string(),
        "catalog: auto lists a catalog whole up to this many tokens",
    );
    line(
        "catalogHotTools",
        c.catalog_hot_tools.to_string(),
        "tools a tiered catalog lists in full (seed 004 T0)",
    );
    line(
        "maxToolNameLength",
        c.max_tool_name_length.to_string(),
        "longest SERVER__NAME the gateway (proxy --mcp-config, no --name) gives a tool",
    );
    line(
        "serverIdleSeconds",
        c.server_idle_seconds.to_string(),
        "the gateway ends a server it started after this long unused",
    );
    line(
        "pins",
        "warn".to_owned(),
        "a tool definition changed since pinned: warn (log, record) | hold (hide until `mcpguard pins approve`) | off",
    );
    out.push_str("hot: []  # tools a tiered catalog lists before any call record ranks them, e.g. [github__create_issue]\n");
    out.push_str(
        "servers: {}  # the gateway's servers by config key, e.g. github: {category: code}\n",
    );
    out.push_str("limits:  # the response contract (seed 003), env MCPGUARD_MAX_BYTES etc.\n");
    let mut limit = |key: &str, value: u64, comment: &str| {
        out.push_str(&format!("  {key}: {value}  # {comment}\n"));
    };
    limit(
        "maxBytes",
        l.max_bytes,
        "INV-MCP-RESP-001: bytes per response",
    );
    limit(
        "maxArrayItems",
        l.max_array_items,
        "INV-MCP-RESP-002: items per array without hasMore/nextCursor",
    );
    limit(
        "maxStringLength",
        l.max_string_length,
        "INV-MCP-RESP-003: characters per string",
    );
    limit(
        "maxJsonDepth",
        l.max_json_depth,
        "INV-MCP-RESP-004: nesting levels",
    );
    limit(
        "maxSummaryLength",
        l.max_summary_length,
        "INV-MCP-RESP-006: characters of summary",
    );
    limit(
        "maxToolDescriptionBytes",
        l.max_tool_description_bytes,
        "Claude Code cuts tool descriptions at 2 KB",
    );
    limit(
        "maxCatalogTokens",
        l.max_catalog_tokens,
        "seed 004 T0: tokens a tool catalog loaded at start may cost",
    );
    let r = &c.read_limits;
    out.push_str(
        "readLimits:  # what mcpguard reads from outside, env MCPGUARD_MAX_DOCUMENT_BYTES etc.\n",
    );
    for (key, value, comment) in [
        (
            "maxDocumentBytes",
            r.max_document_bytes,
            "largest document read whole; larger ones are refused unread",
        ),
        (
            "maxLineBytes",
            r.max_line_bytes,
            "longest JSONL line; longer ones are skipped unread",
        ),
        (
            "maxNesting",
            r.max_nesting,
            "deepest JSON nesting read (at most 128)",
        ),
        (
            "maxCursorBytes",
            r.max_cursor_bytes,
            "longest cursor read or issued",
        ),
    ] {
        out.push_str(&format!("  {key}: {value}  # {comment}\n"));
    }
    out.push_str("rules: {}  # per rule (code MG003 or name string-too-long): off | info | warning | error\n");
    out.push_str("endpoints: {}  # per tool: pagination, summarization, chunking, pageSize, fields, limits, rules\n");
    out.push_str("#  search_bookings:\n#    pageSize: 20\n#    fields: [id, status, totalPrice]\n");
    out.push_str("projections:  # fields kept per record type when summarizing (seed 001 R003)\n");
    for (kind, fields) in &c.projections {
        out.push_str(&format!("  {kind}: [{}]\n", fields.join(", ")));
    }
    out.push_str("clients:  # what each client does with large output; numbers may change, check the source\n");
    for (name, p) in &c.clients {
        out.push_str(&format!("  {name}:\n"));
        let opt = [
            ("warnTokens", p.warn_tokens),
            ("maxTokens", p.max_tokens),
            ("spillChars", p.spill_chars),
            ("previewChars", p.preview_chars),
            ("cutBytes", p.cut_bytes),
            ("cutLines", p.cut_lines),
            ("maxDescriptionBytes", p.max_description_bytes),
        ];
        for (key, value) in opt {
            if let Some(v) = value {
                out.push_str(&format!("    {key}: {v}\n"));
            }
        }
        if let Some(e) = &p.estimate {
            out.push_str(&format!(
                "    estimate: {{charsPerToken: {}, imageTokens: {}, keepAtMost: {}, tooLargeAbove: {}}}\n",
                e.chars_per_token, e.image_tokens, e.keep_at_most, e.too_large_above
            ));
        }
        if let Some(over) = p.over_max_tokens {
            let name = serde_json::to_value(over).unwrap_or_default();
            out.push_str(&format!(
                "    overMaxTokens: {}\n",
                name.as_str().unwrap_or("refuse")
            ));
        }
        if p.structured_content_first {
            out.push_str("    structuredContentFirst: true\n");
        }
        if let Some(l) = &p.image_limits {
            out.push_str(&format!(
                "    imageLimits: {{maxEdge: {}, manyImages: {}, manyImagesMaxEdge: {}, source: \"{}\"}}\n",
                l.max_edge,
                l.many_images,
                l.many_images_max_edge,
                l.source.replace('"', "'")
            ));
        }
        if let Some(v) = &p.client_version {
            out.push_str(&format!("    clientVersion: \"{v}\"\n"));
        }
        out.push_str(&format!("    source: \"{}\"\n", p.source.replace('"', "'")));
    }
    out
}
