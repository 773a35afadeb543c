
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'mcpguard' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'mcpguard'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'mcpguard' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Lint captured responses or live servers (stdio, Streamable HTTP, a client''s server list) against the contract: findings with JSON pointers and savings, per-tool statistics, client verdicts, baselines; table, JSON, SARIF, JUnit, GitHub, Markdown')
            [CompletionResult]::new('estimate', 'estimate', [CompletionResultType]::ParameterValue, 'Measure documents: bytes, what the model sees, tokens, budget, client verdicts, and where the tokens go')
            [CompletionResult]::new('paginate', 'paginate', [CompletionResultType]::ParameterValue, 'Cut one page of a list (a JSON array, a document holding one, an MCP tool result) with a signed nextCursor; --cursor fetches the next page')
            [CompletionResult]::new('summarize', 'summarize', [CompletionResultType]::ParameterValue, 'Shrink a response so it fits the budget and the contract, with the full data stored as an artifact (ax://DOMAIN/ID): projected fields, summarized text, bloat removed')
            [CompletionResult]::new('decode-cursor', 'decode-cursor', [CompletionResultType]::ParameterValue, 'Show what a cursor carries, when it was issued, when it expires, and whether it verifies')
            [CompletionResult]::new('chunk', 'chunk', [CompletionResultType]::ParameterValue, 'Read large text (logs, documents, JSONL, a tool result''s text) in chunks cut at semantic boundaries, with a cursor for the next; --lines for a range')
            [CompletionResult]::new('validate-config', 'validate-config', [CompletionResultType]::ParameterValue, 'Check a config file against the schema and the range rules; print the defaults or the effective config; watch a file and re-validate on every save')
            [CompletionResult]::new('proxy', 'proxy', [CompletionResultType]::ParameterValue, 'Stand between an MCP client and a server (stdio): results that fit pass byte for byte, the rest come back shrunk with the full data one tool call away')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Rewrite a client''s MCP config (Claude Code in each scope, Claude Desktop, Cursor, VS Code, Codex, Gemini CLI, Windsurf, or a file) so its servers start through `mcpguard proxy`, every other byte kept; `--list` shows them all')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Undo `install`: the servers start their own commands again')
            [CompletionResult]::new('auth', 'auth', [CompletionResultType]::ParameterValue, 'Sign in to remote servers (OAuth) and keep the login for the proxy and the audit: login, status, logout, and a fresh Authorization header for a client''s headersHelper')
            [CompletionResult]::new('pins', 'pins', [CompletionResultType]::ParameterValue, 'The tool definitions the gateway has pinned: list them with the changes waiting for a person, approve a change (a held tool is listed again), forget pins')
            [CompletionResult]::new('artifacts', 'artifacts', [CompletionResultType]::ParameterValue, 'List, show and clear out the full results shrunk responses point at (ax://DOMAIN/ID)')
            [CompletionResult]::new('generate', 'generate', [CompletionResultType]::ParameterValue, 'Write shell completions and the man page (for packagers; used to refresh completions/)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mcpguard;audit' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the report to FILE (atomically: whole or not at all) instead of stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the report to FILE (atomically: whole or not at all) instead of stdout')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Exit 1 when a finding is at or above this severity')
            [CompletionResult]::new('--client', '--client', [CompletionResultType]::ParameterName, 'Clients to judge each response against (comma-separated): claude-code, copilot-cli, opencode, or a profile from the config''s `clients`')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'A response contract (JSON Schema, e.g. contracts/response.schema.json): turns on contract mode (a summary is required, MG006) and checks every payload against it (MG017)')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Token counter. Default: the config''s `tokenizer` (auto: exact claude counts near a limit)')
            [CompletionResult]::new('--baseline', '--baseline', [CompletionResultType]::ParameterName, 'Per-tool sizes from an earlier audit: fail when a tool grows past --max-growth or an entry is stale')
            [CompletionResult]::new('--max-growth', '--max-growth', [CompletionResultType]::ParameterName, 'Allowed growth of a tool''s p95 response size over the baseline, in percent')
            [CompletionResult]::new('--pins', '--pins', [CompletionResultType]::ParameterName, 'A pins file (`mcpguard pins`): a live server''s tool whose definition differs from its pin, or a new tool of a pinned server, is MG036 (an error)')
            [CompletionResult]::new('--shard', '--shard', [CompletionResultType]::ParameterName, 'Audit only shard K of N (1-based), split by a hash of each document''s name: the same split on every machine, for parallel CI jobs')
            [CompletionResult]::new('--metrics', '--metrics', [CompletionResultType]::ParameterName, 'Write one telemetry record per response (JSONL). A failure to write warns and never fails the audit')
            [CompletionResult]::new('--from-metrics', '--from-metrics', [CompletionResultType]::ParameterName, 'Summarise a --metrics file (the audit''s or the proxy''s) by tool and outcome instead of auditing; with --format html, as pictures')
            [CompletionResult]::new('--top', '--top', [CompletionResultType]::ParameterName, 'How many of the worst findings the table and Markdown list')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Spawn this server and audit it over stdio: ''CMD ARGS'', split as a shell would (no shell runs). Or give the command after `--`')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Audit a Streamable HTTP server at this URL')
            [CompletionResult]::new('--header', '--header', [CompletionResultType]::ParameterName, 'A header for --url, ''Name: value'' (repeatable). ${VAR} in the value is read from the environment; values are never printed')
            [CompletionResult]::new('--mcp-config', '--mcp-config', [CompletionResultType]::ParameterName, 'A client''s server list (the mcpServers of Claude Desktop, Claude Code''s .mcp.json, ...): every server in it is audited, or only --name')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The server to audit from --mcp-config; with --server or --url, the name reports use')
            [CompletionResult]::new('--calls', '--calls', [CompletionResultType]::ParameterName, 'Tool calls to make (YAML or JSON): a list of {tool, arguments, expect: {maxBytes, isError, contains}}')
            [CompletionResult]::new('--save', '--save', [CompletionResultType]::ParameterName, 'Write each session as DIR/NAME.jsonl (what was exchanged, exactly) and the server''s stderr as DIR/NAME.stderr.log; `mcpguard audit DIR` reads them again')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds one request may take')
            [CompletionResult]::new('--timeout-total', '--timeout-total', [CompletionResultType]::ParameterName, 'Seconds a whole session may take')
            [CompletionResult]::new('--max-message-bytes', '--max-message-bytes', [CompletionResultType]::ParameterName, 'The largest message accepted from a server')
            [CompletionResult]::new('--max-pages', '--max-pages', [CompletionResultType]::ParameterName, 'Pages of one list followed at most')
            [CompletionResult]::new('--protocol', '--protocol', [CompletionResultType]::ParameterName, 'The MCP era to speak. auto: probe with server/discover and speak 2026-07-28 (stateless, _meta on every request) to a server that lists it; open a 2025-11-25 session with initialize when the probe shows a legacy server (any answer that is not a DiscoverResult, an error status, no answer within 10 s)')
            [CompletionResult]::new('--oauth-client-id', '--oauth-client-id', [CompletionResultType]::ParameterName, 'A client registered beforehand at the authorization server (its secret, if any, from MCPGUARD_OAUTH_CLIENT_SECRET; never a flag). Default: the client registered by this login before, else a Client ID Metadata Document, else dynamic registration')
            [CompletionResult]::new('--oauth-client-metadata-url', '--oauth-client-metadata-url', [CompletionResultType]::ParameterName, 'This client''s Client ID Metadata Document (an https URL), used where the authorization server takes one')
            [CompletionResult]::new('--oauth-callback-port', '--oauth-callback-port', [CompletionResultType]::ParameterName, 'The loopback port the sign-in comes back to (default: any free one). Fix it when the authorization server only takes the redirect URI it registered')
            [CompletionResult]::new('--oauth-store', '--oauth-store', [CompletionResultType]::ParameterName, 'Where logins are kept (0600 files, one per server and authorization server). Default: $MCPGUARD_OAUTH_STORE, else ~/.config/mcpguard/oauth')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('--update-baseline', '--update-baseline', [CompletionResultType]::ParameterName, 'Write this audit''s per-tool sizes to --baseline (atomically) instead of comparing')
            [CompletionResult]::new('--update-pins', '--update-pins', [CompletionResultType]::ParameterName, 'Write the tools this live audit saw to --pins (atomically) as their pins')
            [CompletionResult]::new('--oauth', '--oauth', [CompletionResultType]::ParameterName, 'Sign in with OAuth when the server asks (a 401): its metadata found as the MCP authorization spec says, the client registered (or --oauth-client-id), the sign-in URL opened with $BROWSER or the system''s opener (and printed), the redirect taken on a loopback port; a 403 for more scope signs in again with it. The login is kept in the OAuth store and used by the next run (and by `mcpguard auth`, `proxy --url`)')
            [CompletionResult]::new('--probe', '--probe', [CompletionResultType]::ParameterName, 'Also call every tool annotated readOnlyHint whose required arguments have a default, enum, const or example in its schema; no other tool is ever called')
            [CompletionResult]::new('--ask-legacy', '--ask-legacy', [CompletionResultType]::ParameterName, 'Also ask a 2026-07-28 server, on a connection of its own, whether it answers a 2025-11-25 client''s initialize (dual-era). Off by default: that initialize has no _meta, which a modern-only server may count against the client; the servers table then says "(legacy not asked)"')
            [CompletionResult]::new('--oauth-client-credentials', '--oauth-client-credentials', [CompletionResultType]::ParameterName, 'Tokens for the client itself (client_credentials, for CI) instead of a user''s sign-in; needs --oauth-client-id and MCPGUARD_OAUTH_CLIENT_SECRET')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mcpguard;estimate' {
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Token counter. Default: the config''s `tokenizer` (auto)')
            [CompletionResult]::new('--top', '--top', [CompletionResultType]::ParameterName, 'How many JSON paths to list under "where the tokens go" (0 for none)')
            [CompletionResult]::new('--max-tokens', '--max-tokens', [CompletionResultType]::ParameterName, 'Exit 1 when any document is over N tokens: a one-line CI gate')
            [CompletionResult]::new('--client', '--client', [CompletionResultType]::ParameterName, 'Clients to judge each response against (comma-separated): claude-code, copilot-cli, opencode, or a profile from the config''s `clients`')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('--compare', '--compare', [CompletionResultType]::ParameterName, 'Count with every counter, side by side, each with its error against claude')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mcpguard;paginate' {
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'JSON pointer of the list (inside a tool result''s JSON text), e.g. /data/items')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Items per page. Default: the config''s defaultPageSize (50); at most maxPageSize (200)')
            [CompletionResult]::new('--cursor', '--cursor', [CompletionResultType]::ParameterName, 'The nextCursor of the previous page')
            [CompletionResult]::new('--order-by', '--order-by', [CompletionResultType]::ParameterName, 'Sort by FIELD (dotted for nested: price.total), ascending unless :desc. The sort is stable')
            [CompletionResult]::new('--where', '--where', [CompletionResultType]::ParameterName, 'Keep only the items that pass: FIELD=VALUE, FIELD!=VALUE, FIELD>N (>=, <, <=; numbers and ISO dates), FIELD~TEXT (contains, any case), FIELD in (A, B); nested fields dotted (customer.city). Repeatable, or joined by `and`: all must hold. --filter is the same')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Keep only the items that pass: FIELD=VALUE, FIELD!=VALUE, FIELD>N (>=, <, <=; numbers and ISO dates), FIELD~TEXT (contains, any case), FIELD in (A, B); nested fields dotted (customer.city). Repeatable, or joined by `and`: all must hold. --filter is the same')
            [CompletionResult]::new('--aggregate', '--aggregate', [CompletionResultType]::ParameterName, 'Figures instead of a page: count, sum(FIELD), avg(FIELD), min(FIELD), max(FIELD) over the items that pass --where (no cursor, no secret needed)')
            [CompletionResult]::new('--group-by', '--group-by', [CompletionResultType]::ParameterName, 'With --aggregate: the figures per value of this field, largest groups first')
            [CompletionResult]::new('--budget', '--budget', [CompletionResultType]::ParameterName, 'Shrink the page until its output fits this many tokens; meta.heldBack says how many items were left for the next page')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Token counter for --budget. Default: the config''s `tokenizer` (auto)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'json: one page; jsonl: one page per line (the format of --all)')
            [CompletionResult]::new('--secret-file', '--secret-file', [CompletionResultType]::ParameterName, 'File of cursor secrets, one per line (the first signs, all verify). Default: $MCPGUARD_CURSOR_SECRET')
            [CompletionResult]::new('--at', '--at', [CompletionResultType]::ParameterName, 'Take this Unix time as now (reproducible cursors and expiry checks)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every page from here to the end, one per line (--format jsonl)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mcpguard;summarize' {
            [CompletionResult]::new('--fields', '--fields', [CompletionResultType]::ParameterName, 'Fields to keep per record: dotted paths (id,status,price.total), a section (priceBreakdown, returned in full), or `all`. Default: the config''s projection map for the record type, else the identifying and primary fields')
            [CompletionResult]::new('--budget', '--budget', [CompletionResultType]::ParameterName, 'Tokens the output may cost. Default: the config''s tokenBudgetThreshold (4000)')
            [CompletionResult]::new('--tool', '--tool', [CompletionResultType]::ParameterName, 'The tool the response came from: its `endpoints:` entry in the config sets the limits and the fields')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Token counter for the budget. Default: the config''s `tokenizer` (auto)')
            [CompletionResult]::new('--output-schema', '--output-schema', [CompletionResultType]::ParameterName, 'The tool''s outputSchema (or its tools/list entry): structuredContent is kept, valid against it')
            [CompletionResult]::new('--artifact-dir', '--artifact-dir', [CompletionResultType]::ParameterName, 'Where artifacts are stored. Default: the config''s artifactDir (.mcpguard/artifacts)')
            [CompletionResult]::new('--domain', '--domain', [CompletionResultType]::ParameterName, 'The artifact''s domain (ax://DOMAIN/ID). Default: the list''s name, else the kind of document')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Format of the --report: a table, or JSON for scripts')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Summarize even a response that fits')
            [CompletionResult]::new('--drop-empty', '--drop-empty', [CompletionResultType]::ParameterName, 'Drop null, "", [] and {} members')
            [CompletionResult]::new('--table', '--table', [CompletionResultType]::ParameterName, 'Write a list of records as `columns` and `rows` (keys once, not per record)')
            [CompletionResult]::new('--no-artifact', '--no-artifact', [CompletionResultType]::ParameterName, 'Do not store the full input (the output then has no artifactRef)')
            [CompletionResult]::new('--report', '--report', [CompletionResultType]::ParameterName, 'Print a before/after size table (bytes, tokens, each fix''s savings) to stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mcpguard;decode-cursor' {
            [CompletionResult]::new('--data', '--data', [CompletionResultType]::ParameterName, 'Check the cursor against this data: has the list changed since it was issued?')
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'JSON pointer of the list in --data (as for paginate)')
            [CompletionResult]::new('--secret-file', '--secret-file', [CompletionResultType]::ParameterName, 'File of cursor secrets, one per line (the first signs, all verify). Default: $MCPGUARD_CURSOR_SECRET')
            [CompletionResult]::new('--at', '--at', [CompletionResultType]::ParameterName, 'Take this Unix time as now (reproducible cursors and expiry checks)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mcpguard;chunk' {
            [CompletionResult]::new('--max-tokens', '--max-tokens', [CompletionResultType]::ParameterName, 'Tokens per chunk. Default: the config''s chunkSize (2000)')
            [CompletionResult]::new('--max-lines', '--max-lines', [CompletionResultType]::ParameterName, 'Lines per chunk. Default: the config''s chunkMaxLines (200)')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'What the text is (detected from the name and the first 64 KB otherwise)')
            [CompletionResult]::new('--cursor', '--cursor', [CompletionResultType]::ParameterName, 'The nextCursor of the previous chunk')
            [CompletionResult]::new('--lines', '--lines', [CompletionResultType]::ParameterName, 'Just these lines, 1-based and inclusive: 100:200, 100: (to the end), or 100')
            [CompletionResult]::new('--match', '--match', [CompletionResultType]::ParameterName, 'Find instead of chunk: every entry (log entry with its stack trace, Markdown block, JSONL record; in plain text, the line) that matches this regular expression (the regex crate''s syntax; (?i) for any case), whole, under `--- lines A-B`')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'With --match: N lines of context before and after each match (at most 50)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'json: one chunk; jsonl: one chunk per line; text: the bare content, for a pager')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Token counter for --max-tokens. Default: the config''s `tokenizer` (auto)')
            [CompletionResult]::new('--secret-file', '--secret-file', [CompletionResultType]::ParameterName, 'File of cursor secrets, one per line (the first signs, all verify). Default: $MCPGUARD_CURSOR_SECRET')
            [CompletionResult]::new('--at', '--at', [CompletionResultType]::ParameterName, 'Take this Unix time as now (reproducible cursors and expiry checks)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every chunk from here to the end (--format jsonl: one per line; text: the bare content)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mcpguard;validate-config' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('--print-defaults', '--print-defaults', [CompletionResultType]::ParameterName, 'Print the documented default config (YAML) and exit')
            [CompletionResult]::new('--show-effective', '--show-effective', [CompletionResultType]::ParameterName, 'Show every effective value and where it came from (default, file:line, env)')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Keep running: re-validate on every save, print old -> new values, keep the last good config when a save is invalid. Stop with Ctrl-C')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mcpguard;proxy' {
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The server to run: ''CMD ARGS'', split as a shell would (no shell runs). Or give the command after `--`')
            [CompletionResult]::new('--mcp-config', '--mcp-config', [CompletionResultType]::ParameterName, 'A client''s server list (mcpServers of Claude Desktop, Claude Code''s .mcp.json). With one --name: that server alone. Without (or with several): the gateway, one MCP server in front of all of them, tools named SERVER__TOOL')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'A server of --mcp-config (repeatable: the gateway over those only)')
            [CompletionResult]::new('--catalog-cache', '--catalog-cache', [CompletionResultType]::ParameterName, 'Gateway: where server catalogs are kept between runs. Default: $XDG_CACHE_HOME/mcpguard/catalogs, else ~/.cache/mcpguard/catalogs')
            [CompletionResult]::new('--pins', '--pins', [CompletionResultType]::ParameterName, 'Gateway: the pins file, the SHA-256 of every tool definition seen (config `pins`: warn logs a changed one, hold keeps it back until `mcpguard pins approve`). Default: one per --mcp-config file in $XDG_CONFIG_HOME/mcpguard/pins (else ~/.config/...)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds a request may wait for the server before the client gets an error (the session lives on)')
            [CompletionResult]::new('--max-message-bytes', '--max-message-bytes', [CompletionResultType]::ParameterName, 'The largest message read from either side; a larger one is answered with an error')
            [CompletionResult]::new('--metrics', '--metrics', [CompletionResultType]::ParameterName, 'Write one record per request to this file (JSON lines): outcome, bytes and tokens before and after, upstream latency, proxy overhead')
            [CompletionResult]::new('--metrics-max-bytes', '--metrics-max-bytes', [CompletionResultType]::ParameterName, 'Rotate --metrics to FILE.1 when it passes this size')
            [CompletionResult]::new('--accuracy-sample', '--accuracy-sample', [CompletionResultType]::ParameterName, 'Share of results whose token estimate is checked against Claude''s exact count (recorded as exactTokensBefore; a difference over 25% is logged). 0 turns it off')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'The log on stderr: text for people, json for log collectors')
            [CompletionResult]::new('--artifact-dir', '--artifact-dir', [CompletionResultType]::ParameterName, 'Where full results are kept. Default: the config''s artifactDir')
            [CompletionResult]::new('--artifact-ttl', '--artifact-ttl', [CompletionResultType]::ParameterName, 'How long a full result is kept, e.g. 1h, 30m')
            [CompletionResult]::new('--artifact-cap', '--artifact-cap', [CompletionResultType]::ParameterName, 'The store''s size cap in bytes; the oldest results go first')
            [CompletionResult]::new('--secret-file', '--secret-file', [CompletionResultType]::ParameterName, 'File of cursor secrets, one per line (the first signs, all verify). Default: $MCPGUARD_CURSOR_SECRET')
            [CompletionResult]::new('--at', '--at', [CompletionResultType]::ParameterName, 'Take this Unix time as now (reproducible cursors and expiry checks)')
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'Serve Streamable HTTP at http://ADDR/mcp to many clients, in front of --url or of the server''s command. Needs MCPGUARD_CURSOR_SECRET (or --secret-file), shared by every instance')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'A remote server''s Streamable HTTP endpoint. Without --listen: the stdio bridge a stdio-only client starts (signing in with OAuth when the server asks, the login kept for the next start); with --listen: the upstream of the HTTP proxy')
            [CompletionResult]::new('--remote-entry', '--remote-entry', [CompletionResultType]::ParameterName, 'What a client''s remote entry was before `mcpguard install` made it this bridge (its URL member and type), for `uninstall`; nothing else reads it')
            [CompletionResult]::new('--header', '--header', [CompletionResultType]::ParameterName, 'A header sent to --url on every request, ''Name: value'' (repeatable); ${VAR} in the value is read from the environment. Never logged')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Where full results go with --listen: redis://HOST:PORT/DB (shared by instances) or a directory. Default: --artifact-dir, else the config''s artifactDir')
            [CompletionResult]::new('--metrics-listen', '--metrics-listen', [CompletionResultType]::ParameterName, 'Serve Prometheus metrics at http://ADDR/metrics and readiness at /health')
            [CompletionResult]::new('--allowed-host', '--allowed-host', [CompletionResultType]::ParameterName, 'A Host (and Origin) the listener answers besides its own names, as HOST or HOST:PORT (repeat it for more). On a loopback address only localhost, 127.0.0.1 and [::1] are answered otherwise (DNS-rebinding protection: 421 for another Host, 403 for another Origin); on any other address nothing is checked unless this is given')
            [CompletionResult]::new('--max-request-bytes', '--max-request-bytes', [CompletionResultType]::ParameterName, 'The largest request body a client may send (413 beyond)')
            [CompletionResult]::new('--max-concurrent', '--max-concurrent', [CompletionResultType]::ParameterName, 'Requests to the server at once; more wait in the queue')
            [CompletionResult]::new('--queue', '--queue', [CompletionResultType]::ParameterName, 'Requests that may wait for a place; more get 503 and a JSON-RPC error at once')
            [CompletionResult]::new('--shutdown-grace', '--shutdown-grace', [CompletionResultType]::ParameterName, 'On SIGTERM, how long requests in flight may take to finish')
            [CompletionResult]::new('--oauth-client-id', '--oauth-client-id', [CompletionResultType]::ParameterName, 'A client registered beforehand at the authorization server (its secret, if any, from MCPGUARD_OAUTH_CLIENT_SECRET; never a flag). Default: the client registered by this login before, else a Client ID Metadata Document, else dynamic registration')
            [CompletionResult]::new('--oauth-client-metadata-url', '--oauth-client-metadata-url', [CompletionResultType]::ParameterName, 'This client''s Client ID Metadata Document (an https URL), used where the authorization server takes one')
            [CompletionResult]::new('--oauth-callback-port', '--oauth-callback-port', [CompletionResultType]::ParameterName, 'The loopback port the sign-in comes back to (default: any free one). Fix it when the authorization server only takes the redirect URI it registered')
            [CompletionResult]::new('--oauth-store', '--oauth-store', [CompletionResultType]::ParameterName, 'Where logins are kept (0600 files, one per server and authorization server). Default: $MCPGUARD_OAUTH_STORE, else ~/.config/mcpguard/oauth')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('--eager', '--eager', [CompletionResultType]::ParameterName, 'Gateway: start every server at once and keep it, rather than on first use')
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'Gateway: print each server''s state (running or not, tools, catalog cached when, last error) and exit')
            [CompletionResult]::new('--route-only', '--route-only', [CompletionResultType]::ParameterName, 'The gateway''s routing alone on stdin and stdout, without the policy: what --listen starts as its command')
            [CompletionResult]::new('--shadow', '--shadow', [CompletionResultType]::ParameterName, 'Change nothing: pass every message as it is and log what would have been done')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Log warnings and errors only, not every decision')
            [CompletionResult]::new('--no-artifacts', '--no-artifacts', [CompletionResultType]::ParameterName, 'Keep no full results: shrunk results are previews without a reference')
            [CompletionResult]::new('--oauth', '--oauth', [CompletionResultType]::ParameterName, 'With --listen --url: hold the remote server''s OAuth login (made once with `mcpguard auth login --url URL`) and send it upstream in place of the client''s; refresh it when it expires or the server answers 401. Clients connect with no OAuth of their own. The stdio bridge (--url without --listen) always signs in when the server asks')
            [CompletionResult]::new('--oauth-client-credentials', '--oauth-client-credentials', [CompletionResultType]::ParameterName, 'Tokens for the client itself (client_credentials, for CI) instead of a user''s sign-in; needs --oauth-client-id and MCPGUARD_OAUTH_CLIENT_SECRET')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mcpguard;install' {
            [CompletionResult]::new('--client', '--client', [CompletionResultType]::ParameterName, 'The client whose servers to change, where it keeps them')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Which of the client''s server lists. Default: local for claude-code (as `claude mcp add`), every one whose file exists for the others')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Only this server (repeatable). Default: every server in the list')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'With --list: table or json')
            [CompletionResult]::new('--mcpguard', '--mcpguard', [CompletionResultType]::ParameterName, 'The command that starts mcpguard in the config (`"npx -y mcpguard"` splits as a shell would). Default: this mcpguard''s full path (clients such as Claude Desktop start servers without your shell''s PATH), or `npx -y mcpguard` / `uvx mcpguard` when this mcpguard runs from npx''s or uvx''s cache, which may be emptied')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('--claude-desktop', '--claude-desktop', [CompletionResultType]::ParameterName, 'Claude Desktop''s config (the same as --client claude-desktop)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Say what would change; write nothing')
            [CompletionResult]::new('--list', '--list', [CompletionResultType]::ParameterName, 'List every client config found on this machine (for this directory''s project too), its servers, and which are behind the proxy; change nothing')
            [CompletionResult]::new('--gateway', '--gateway', [CompletionResultType]::ParameterName, 'Put the chosen servers of each list behind one gateway entry (`mcpguard proxy --mcp-config FILE`, the servers moved to FILE in ~/.config/mcpguard/gateways/), rather than each behind a proxy of its own. `uninstall` puts them back')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mcpguard;uninstall' {
            [CompletionResult]::new('--client', '--client', [CompletionResultType]::ParameterName, 'The client whose servers to change, where it keeps them')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Which of the client''s server lists. Default: local for claude-code (as `claude mcp add`), every one whose file exists for the others')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Only this server (repeatable). Default: every server in the list')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('--claude-desktop', '--claude-desktop', [CompletionResultType]::ParameterName, 'Claude Desktop''s config (the same as --client claude-desktop)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Say what would change; write nothing')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mcpguard;auth' {
            [CompletionResult]::new('--oauth-client-id', '--oauth-client-id', [CompletionResultType]::ParameterName, 'A client registered beforehand at the authorization server (its secret, if any, from MCPGUARD_OAUTH_CLIENT_SECRET; never a flag). Default: the client registered by this login before, else a Client ID Metadata Document, else dynamic registration')
            [CompletionResult]::new('--oauth-client-metadata-url', '--oauth-client-metadata-url', [CompletionResultType]::ParameterName, 'This client''s Client ID Metadata Document (an https URL), used where the authorization server takes one')
            [CompletionResult]::new('--oauth-callback-port', '--oauth-callback-port', [CompletionResultType]::ParameterName, 'The loopback port the sign-in comes back to (default: any free one). Fix it when the authorization server only takes the redirect URI it registered')
            [CompletionResult]::new('--oauth-store', '--oauth-store', [CompletionResultType]::ParameterName, 'Where logins are kept (0600 files, one per server and authorization server). Default: $MCPGUARD_OAUTH_STORE, else ~/.config/mcpguard/oauth')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('--oauth-client-credentials', '--oauth-client-credentials', [CompletionResultType]::ParameterName, 'Tokens for the client itself (client_credentials, for CI) instead of a user''s sign-in; needs --oauth-client-id and MCPGUARD_OAUTH_CLIENT_SECRET')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('login', 'login', [CompletionResultType]::ParameterValue, 'Sign in to a server in the browser and keep the login (replacing one kept before)')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'The logins kept: server, authorization server, client, scopes, expiry. No tokens')
            [CompletionResult]::new('logout', 'logout', [CompletionResultType]::ParameterValue, 'Forget a server''s login')
            [CompletionResult]::new('header', 'header', [CompletionResultType]::ParameterValue, 'Print a fresh Authorization header for a server (refreshed when it is about to expire), as the JSON object a headersHelper prints, or as an HTTP header line')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mcpguard;auth;login' {
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'The server''s Streamable HTTP endpoint')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds to wait for the browser to come back')
            [CompletionResult]::new('--oauth-client-id', '--oauth-client-id', [CompletionResultType]::ParameterName, 'A client registered beforehand at the authorization server (its secret, if any, from MCPGUARD_OAUTH_CLIENT_SECRET; never a flag). Default: the client registered by this login before, else a Client ID Metadata Document, else dynamic registration')
            [CompletionResult]::new('--oauth-client-metadata-url', '--oauth-client-metadata-url', [CompletionResultType]::ParameterName, 'This client''s Client ID Metadata Document (an https URL), used where the authorization server takes one')
            [CompletionResult]::new('--oauth-callback-port', '--oauth-callback-port', [CompletionResultType]::ParameterName, 'The loopback port the sign-in comes back to (default: any free one). Fix it when the authorization server only takes the redirect URI it registered')
            [CompletionResult]::new('--oauth-store', '--oauth-store', [CompletionResultType]::ParameterName, 'Where logins are kept (0600 files, one per server and authorization server). Default: $MCPGUARD_OAUTH_STORE, else ~/.config/mcpguard/oauth')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('--oauth-client-credentials', '--oauth-client-credentials', [CompletionResultType]::ParameterName, 'Tokens for the client itself (client_credentials, for CI) instead of a user''s sign-in; needs --oauth-client-id and MCPGUARD_OAUTH_CLIENT_SECRET')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mcpguard;auth;status' {
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Only this server''s login (exit 1 when there is none)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'format')
            [CompletionResult]::new('--oauth-client-id', '--oauth-client-id', [CompletionResultType]::ParameterName, 'A client registered beforehand at the authorization server (its secret, if any, from MCPGUARD_OAUTH_CLIENT_SECRET; never a flag). Default: the client registered by this login before, else a Client ID Metadata Document, else dynamic registration')
            [CompletionResult]::new('--oauth-client-metadata-url', '--oauth-client-metadata-url', [CompletionResultType]::ParameterName, 'This client''s Client ID Metadata Document (an https URL), used where the authorization server takes one')
            [CompletionResult]::new('--oauth-callback-port', '--oauth-callback-port', [CompletionResultType]::ParameterName, 'The loopback port the sign-in comes back to (default: any free one). Fix it when the authorization server only takes the redirect URI it registered')
            [CompletionResult]::new('--oauth-store', '--oauth-store', [CompletionResultType]::ParameterName, 'Where logins are kept (0600 files, one per server and authorization server). Default: $MCPGUARD_OAUTH_STORE, else ~/.config/mcpguard/oauth')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('--oauth-client-credentials', '--oauth-client-credentials', [CompletionResultType]::ParameterName, 'Tokens for the client itself (client_credentials, for CI) instead of a user''s sign-in; needs --oauth-client-id and MCPGUARD_OAUTH_CLIENT_SECRET')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mcpguard;auth;logout' {
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'url')
            [CompletionResult]::new('--oauth-client-id', '--oauth-client-id', [CompletionResultType]::ParameterName, 'A client registered beforehand at the authorization server (its secret, if any, from MCPGUARD_OAUTH_CLIENT_SECRET; never a flag). Default: the client registered by this login before, else a Client ID Metadata Document, else dynamic registration')
            [CompletionResult]::new('--oauth-client-metadata-url', '--oauth-client-metadata-url', [CompletionResultType]::ParameterName, 'This client''s Client ID Metadata Document (an https URL), used where the authorization server takes one')
            [CompletionResult]::new('--oauth-callback-port', '--oauth-callback-port', [CompletionResultType]::ParameterName, 'The loopback port the sign-in comes back to (default: any free one). Fix it when the authorization server only takes the redirect URI it registered')
            [CompletionResult]::new('--oauth-store', '--oauth-store', [CompletionResultType]::ParameterName, 'Where logins are kept (0600 files, one per server and authorization server). Default: $MCPGUARD_OAUTH_STORE, else ~/.config/mcpguard/oauth')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('--oauth-client-credentials', '--oauth-client-credentials', [CompletionResultType]::ParameterName, 'Tokens for the client itself (client_credentials, for CI) instead of a user''s sign-in; needs --oauth-client-id and MCPGUARD_OAUTH_CLIENT_SECRET')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mcpguard;auth;header' {
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'url')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'format')
            [CompletionResult]::new('--oauth-client-id', '--oauth-client-id', [CompletionResultType]::ParameterName, 'A client registered beforehand at the authorization server (its secret, if any, from MCPGUARD_OAUTH_CLIENT_SECRET; never a flag). Default: the client registered by this login before, else a Client ID Metadata Document, else dynamic registration')
            [CompletionResult]::new('--oauth-client-metadata-url', '--oauth-client-metadata-url', [CompletionResultType]::ParameterName, 'This client''s Client ID Metadata Document (an https URL), used where the authorization server takes one')
            [CompletionResult]::new('--oauth-callback-port', '--oauth-callback-port', [CompletionResultType]::ParameterName, 'The loopback port the sign-in comes back to (default: any free one). Fix it when the authorization server only takes the redirect URI it registered')
            [CompletionResult]::new('--oauth-store', '--oauth-store', [CompletionResultType]::ParameterName, 'Where logins are kept (0600 files, one per server and authorization server). Default: $MCPGUARD_OAUTH_STORE, else ~/.config/mcpguard/oauth')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('--oauth-client-credentials', '--oauth-client-credentials', [CompletionResultType]::ParameterName, 'Tokens for the client itself (client_credentials, for CI) instead of a user''s sign-in; needs --oauth-client-id and MCPGUARD_OAUTH_CLIENT_SECRET')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mcpguard;auth;help' {
            [CompletionResult]::new('login', 'login', [CompletionResultType]::ParameterValue, 'Sign in to a server in the browser and keep the login (replacing one kept before)')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'The logins kept: server, authorization server, client, scopes, expiry. No tokens')
            [CompletionResult]::new('logout', 'logout', [CompletionResultType]::ParameterValue, 'Forget a server''s login')
            [CompletionResult]::new('header', 'header', [CompletionResultType]::ParameterValue, 'Print a fresh Authorization header for a server (refreshed when it is about to expire), as the JSON object a headersHelper prints, or as an HTTP header line')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mcpguard;auth;help;login' {
            break
        }
        'mcpguard;auth;help;status' {
            break
        }
        'mcpguard;auth;help;logout' {
            break
        }
        'mcpguard;auth;help;header' {
            break
        }
        'mcpguard;auth;help;help' {
            break
        }
        'mcpguard;pins' {
            [CompletionResult]::new('--mcp-config', '--mcp-config', [CompletionResultType]::ParameterName, 'The gateway''s server list: its pins file is the one in the user''s config folder')
            [CompletionResult]::new('--pins', '--pins', [CompletionResultType]::ParameterName, 'A pins file (the one `proxy --pins` or `audit --pins` uses)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Every pinned tool by server, and the changes waiting for approval with what changed')
            [CompletionResult]::new('approve', 'approve', [CompletionResultType]::ParameterValue, 'Make the pending definitions of a server, or of one SERVER__TOOL, the pins')
            [CompletionResult]::new('forget', 'forget', [CompletionResultType]::ParameterValue, 'Drop the pins of a server, or of one SERVER__TOOL: the next sight pins them afresh')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mcpguard;pins;list' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'format')
            [CompletionResult]::new('--mcp-config', '--mcp-config', [CompletionResultType]::ParameterName, 'The gateway''s server list: its pins file is the one in the user''s config folder')
            [CompletionResult]::new('--pins', '--pins', [CompletionResultType]::ParameterName, 'A pins file (the one `proxy --pins` or `audit --pins` uses)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mcpguard;pins;approve' {
            [CompletionResult]::new('--mcp-config', '--mcp-config', [CompletionResultType]::ParameterName, 'The gateway''s server list: its pins file is the one in the user''s config folder')
            [CompletionResult]::new('--pins', '--pins', [CompletionResultType]::ParameterName, 'A pins file (the one `proxy --pins` or `audit --pins` uses)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mcpguard;pins;forget' {
            [CompletionResult]::new('--mcp-config', '--mcp-config', [CompletionResultType]::ParameterName, 'The gateway''s server list: its pins file is the one in the user''s config folder')
            [CompletionResult]::new('--pins', '--pins', [CompletionResultType]::ParameterName, 'A pins file (the one `proxy --pins` or `audit --pins` uses)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mcpguard;pins;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Every pinned tool by server, and the changes waiting for approval with what changed')
            [CompletionResult]::new('approve', 'approve', [CompletionResultType]::ParameterValue, 'Make the pending definitions of a server, or of one SERVER__TOOL, the pins')
            [CompletionResult]::new('forget', 'forget', [CompletionResultType]::ParameterValue, 'Drop the pins of a server, or of one SERVER__TOOL: the next sight pins them afresh')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mcpguard;pins;help;list' {
            break
        }
        'mcpguard;pins;help;approve' {
            break
        }
        'mcpguard;pins;help;forget' {
            break
        }
        'mcpguard;pins;help;help' {
            break
        }
        'mcpguard;artifacts' {
            [CompletionResult]::new('--artifact-dir', '--artifact-dir', [CompletionResultType]::ParameterName, 'The store. Default: the config''s artifactDir')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'How long an artifact lives, e.g. 1h, 30m')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Every artifact, oldest first: reference, size, age, expired or not')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Write one artifact''s bytes to stdout, exactly as stored; or find in it (--match, --where, --aggregate)')
            [CompletionResult]::new('gc', 'gc', [CompletionResultType]::ParameterValue, 'Remove what expired, then the oldest until the store is under --cap')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mcpguard;artifacts;list' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'format')
            [CompletionResult]::new('--artifact-dir', '--artifact-dir', [CompletionResultType]::ParameterName, 'The store. Default: the config''s artifactDir')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'How long an artifact lives, e.g. 1h, 30m')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mcpguard;artifacts;show' {
            [CompletionResult]::new('--match', '--match', [CompletionResultType]::ParameterName, 'The entries of its text that match this regular expression, whole (log entries with their stack traces, Markdown blocks, JSONL records, else lines); on a list of records, the records whose JSON matches')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'With --match on text: N lines of context around each match (at most 50)')
            [CompletionResult]::new('--where', '--where', [CompletionResultType]::ParameterName, 'Only the records that pass (as paginate --where): status=cancelled, total>100, title~refund, status in (a, b); repeatable, all must hold')
            [CompletionResult]::new('--order-by', '--order-by', [CompletionResultType]::ParameterName, 'Records sorted by FIELD (FIELD:desc for largest first)')
            [CompletionResult]::new('--aggregate', '--aggregate', [CompletionResultType]::ParameterName, 'Figures instead of records: count, sum(FIELD), avg(FIELD), min(FIELD), max(FIELD)')
            [CompletionResult]::new('--group-by', '--group-by', [CompletionResultType]::ParameterName, 'With --aggregate: the figures per value of this field')
            [CompletionResult]::new('--artifact-dir', '--artifact-dir', [CompletionResultType]::ParameterName, 'The store. Default: the config''s artifactDir')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'How long an artifact lives, e.g. 1h, 30m')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mcpguard;artifacts;gc' {
            [CompletionResult]::new('--cap', '--cap', [CompletionResultType]::ParameterName, 'The store''s size cap in bytes')
            [CompletionResult]::new('--artifact-dir', '--artifact-dir', [CompletionResultType]::ParameterName, 'The store. Default: the config''s artifactDir')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'How long an artifact lives, e.g. 1h, 30m')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mcpguard;artifacts;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Every artifact, oldest first: reference, size, age, expired or not')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Write one artifact''s bytes to stdout, exactly as stored; or find in it (--match, --where, --aggregate)')
            [CompletionResult]::new('gc', 'gc', [CompletionResultType]::ParameterValue, 'Remove what expired, then the oldest until the store is under --cap')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mcpguard;artifacts;help;list' {
            break
        }
        'mcpguard;artifacts;help;show' {
            break
        }
        'mcpguard;artifacts;help;gc' {
            break
        }
        'mcpguard;artifacts;help;help' {
            break
        }
        'mcpguard;generate' {
            [CompletionResult]::new('--out', '--out', [CompletionResultType]::ParameterName, 'Directory to write into (created if missing)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour on stderr. NO_COLOR in the environment means never')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mcpguard;help' {
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Lint captured responses or live servers (stdio, Streamable HTTP, a client''s server list) against the contract: findings with JSON pointers and savings, per-tool statistics, client verdicts, baselines; table, JSON, SARIF, JUnit, GitHub, Markdown')
            [CompletionResult]::new('estimate', 'estimate', [CompletionResultType]::ParameterValue, 'Measure documents: bytes, what the model sees, tokens, budget, client verdicts, and where the tokens go')
            [CompletionResult]::new('paginate', 'paginate', [CompletionResultType]::ParameterValue, 'Cut one page of a list (a JSON array, a document holding one, an MCP tool result) with a signed nextCursor; --cursor fetches the next page')
            [CompletionResult]::new('summarize', 'summarize', [CompletionResultType]::ParameterValue, 'Shrink a response so it fits the budget and the contract, with the full data stored as an artifact (ax://DOMAIN/ID): projected fields, summarized text, bloat removed')
            [CompletionResult]::new('decode-cursor', 'decode-cursor', [CompletionResultType]::ParameterValue, 'Show what a cursor carries, when it was issued, when it expires, and whether it verifies')
            [CompletionResult]::new('chunk', 'chunk', [CompletionResultType]::ParameterValue, 'Read large text (logs, documents, JSONL, a tool result''s text) in chunks cut at semantic boundaries, with a cursor for the next; --lines for a range')
            [CompletionResult]::new('validate-config', 'validate-config', [CompletionResultType]::ParameterValue, 'Check a config file against the schema and the range rules; print the defaults or the effective config; watch a file and re-validate on every save')
            [CompletionResult]::new('proxy', 'proxy', [CompletionResultType]::ParameterValue, 'Stand between an MCP client and a server (stdio): results that fit pass byte for byte, the rest come back shrunk with the full data one tool call away')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Rewrite a client''s MCP config (Claude Code in each scope, Claude Desktop, Cursor, VS Code, Codex, Gemini CLI, Windsurf, or a file) so its servers start through `mcpguard proxy`, every other byte kept; `--list` shows them all')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Undo `install`: the servers start their own commands again')
            [CompletionResult]::new('auth', 'auth', [CompletionResultType]::ParameterValue, 'Sign in to remote servers (OAuth) and keep the login for the proxy and the audit: login, status, logout, and a fresh Authorization header for a client''s headersHelper')
            [CompletionResult]::new('pins', 'pins', [CompletionResultType]::ParameterValue, 'The tool definitions the gateway has pinned: list them with the changes waiting for a person, approve a change (a held tool is listed again), forget pins')
            [CompletionResult]::new('artifacts', 'artifacts', [CompletionResultType]::ParameterValue, 'List, show and clear out the full results shrunk responses point at (ax://DOMAIN/ID)')
            [CompletionResult]::new('generate', 'generate', [CompletionResultType]::ParameterValue, 'Write shell completions and the man page (for packagers; used to refresh completions/)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mcpguard;help;audit' {
            break
        }
        'mcpguard;help;estimate' {
            break
        }
        'mcpguard;help;paginate' {
            break
        }
        'mcpguard;help;summarize' {
            break
        }
        'mcpguard;help;decode-cursor' {
            break
        }
        'mcpguard;help;chunk' {
            break
        }
        'mcpguard;help;validate-config' {
            break
        }
        'mcpguard;help;proxy' {
            break
        }
        'mcpguard;help;install' {
            break
        }
        'mcpguard;help;uninstall' {
            break
        }
        'mcpguard;help;auth' {
            [CompletionResult]::new('login', 'login', [CompletionResultType]::ParameterValue, 'Sign in to a server in the browser and keep the login (replacing one kept before)')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'The logins kept: server, authorization server, client, scopes, expiry. No tokens')
            [CompletionResult]::new('logout', 'logout', [CompletionResultType]::ParameterValue, 'Forget a server''s login')
            [CompletionResult]::new('header', 'header', [CompletionResultType]::ParameterValue, 'Print a fresh Authorization header for a server (refreshed when it is about to expire), as the JSON object a headersHelper prints, or as an HTTP header line')
            break
        }
        'mcpguard;help;auth;login' {
            break
        }
        'mcpguard;help;auth;status' {
            break
        }
        'mcpguard;help;auth;logout' {
            break
        }
        'mcpguard;help;auth;header' {
            break
        }
        'mcpguard;help;pins' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Every pinned tool by server, and the changes waiting for approval with what changed')
            [CompletionResult]::new('approve', 'approve', [CompletionResultType]::ParameterValue, 'Make the pending definitions of a server, or of one SERVER__TOOL, the pins')
            [CompletionResult]::new('forget', 'forget', [CompletionResultType]::ParameterValue, 'Drop the pins of a server, or of one SERVER__TOOL: the next sight pins them afresh')
            break
        }
        'mcpguard;help;pins;list' {
            break
        }
        'mcpguard;help;pins;approve' {
            break
        }
        'mcpguard;help;pins;forget' {
            break
        }
        'mcpguard;help;artifacts' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Every artifact, oldest first: reference, size, age, expired or not')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Write one artifact''s bytes to stdout, exactly as stored; or find in it (--match, --where, --aggregate)')
            [CompletionResult]::new('gc', 'gc', [CompletionResultType]::ParameterValue, 'Remove what expired, then the oldest until the store is under --cap')
            break
        }
        'mcpguard;help;artifacts;list' {
            break
        }
        'mcpguard;help;artifacts;show' {
            break
        }
        'mcpguard;help;artifacts;gc' {
            break
        }
        'mcpguard;help;generate' {
            break
        }
        'mcpguard;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
