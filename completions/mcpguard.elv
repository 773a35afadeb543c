
use builtin;
use str;

set edit:completion:arg-completer[mcpguard] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'mcpguard'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'mcpguard'= {
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand audit 'Lint captured responses or live servers (stdio, Streamable HTTP, a client''s server list) against the contract: findings with JSON pointers and savings, per-tool statistics, client verdicts, baselines; table, JSON, SARIF, JUnit, GitHub, Markdown'
            cand estimate 'Measure documents: bytes, what the model sees, tokens, budget, client verdicts, and where the tokens go'
            cand paginate 'Cut one page of a list (a JSON array, a document holding one, an MCP tool result) with a signed nextCursor; --cursor fetches the next page'
            cand summarize 'Shrink a response so it fits the budget and the contract, with the full data stored as an artifact (ax://DOMAIN/ID): projected fields, summarized text, bloat removed'
            cand decode-cursor 'Show what a cursor carries, when it was issued, when it expires, and whether it verifies'
            cand chunk 'Read large text (logs, documents, JSONL, a tool result''s text) in chunks cut at semantic boundaries, with a cursor for the next; --lines for a range'
            cand validate-config 'Check a config file against the schema and the range rules; print the defaults or the effective config; watch a file and re-validate on every save'
            cand proxy 'Stand between an MCP client and a server (stdio): results that fit pass byte for byte, the rest come back shrunk with the full data one tool call away'
            cand install 'Rewrite a client''s MCP config (Claude Code in each scope, Claude Desktop, Cursor, VS Code, Codex, Gemini CLI, Windsurf, or a file) so its servers start through `mcpguard proxy`, every other byte kept; `--list` shows them all'
            cand uninstall 'Undo `install`: the servers start their own commands again'
            cand auth 'Sign in to remote servers (OAuth) and keep the login for the proxy and the audit: login, status, logout, and a fresh Authorization header for a client''s headersHelper'
            cand pins 'The tool definitions the gateway has pinned: list them with the changes waiting for a person, approve a change (a held tool is listed again), forget pins'
            cand artifacts 'List, show and clear out the full results shrunk responses point at (ax://DOMAIN/ID)'
            cand generate 'Write shell completions and the man page (for packagers; used to refresh completions/)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mcpguard;audit'= {
            cand --format 'Output format'
            cand -o 'Write the report to FILE (atomically: whole or not at all) instead of stdout'
            cand --output 'Write the report to FILE (atomically: whole or not at all) instead of stdout'
            cand --fail-on 'Exit 1 when a finding is at or above this severity'
            cand --client 'Clients to judge each response against (comma-separated): claude-code, copilot-cli, opencode, or a profile from the config''s `clients`'
            cand --contract 'A response contract (JSON Schema, e.g. contracts/response.schema.json): turns on contract mode (a summary is required, MG006) and checks every payload against it (MG017)'
            cand --tokenizer 'Token counter. Default: the config''s `tokenizer` (auto: exact claude counts near a limit)'
            cand --baseline 'Per-tool sizes from an earlier audit: fail when a tool grows past --max-growth or an entry is stale'
            cand --max-growth 'Allowed growth of a tool''s p95 response size over the baseline, in percent'
            cand --pins 'A pins file (`mcpguard pins`): a live server''s tool whose definition differs from its pin, or a new tool of a pinned server, is MG036 (an error)'
            cand --shard 'Audit only shard K of N (1-based), split by a hash of each document''s name: the same split on every machine, for parallel CI jobs'
            cand --metrics 'Write one telemetry record per response (JSONL). A failure to write warns and never fails the audit'
            cand --from-metrics 'Summarise a --metrics file (the audit''s or the proxy''s) by tool and outcome instead of auditing; with --format html, as pictures'
            cand --top 'How many of the worst findings the table and Markdown list'
            cand --server 'Spawn this server and audit it over stdio: ''CMD ARGS'', split as a shell would (no shell runs). Or give the command after `--`'
            cand --url 'Audit a Streamable HTTP server at this URL'
            cand --header 'A header for --url, ''Name: value'' (repeatable). ${VAR} in the value is read from the environment; values are never printed'
            cand --mcp-config 'A client''s server list (the mcpServers of Claude Desktop, Claude Code''s .mcp.json, ...): every server in it is audited, or only --name'
            cand --name 'The server to audit from --mcp-config; with --server or --url, the name reports use'
            cand --calls 'Tool calls to make (YAML or JSON): a list of {tool, arguments, expect: {maxBytes, isError, contains}}'
            cand --save 'Write each session as DIR/NAME.jsonl (what was exchanged, exactly) and the server''s stderr as DIR/NAME.stderr.log; `mcpguard audit DIR` reads them again'
            cand --timeout 'Seconds one request may take'
            cand --timeout-total 'Seconds a whole session may take'
            cand --max-message-bytes 'The largest message accepted from a server'
            cand --max-pages 'Pages of one list followed at most'
            cand --protocol 'The MCP era to speak. auto: probe with server/discover and speak 2026-07-28 (stateless, _meta on every request) to a server that lists it; open a 2025-11-25 session with initialize when the probe shows a legacy server (any answer that is not a DiscoverResult, an error status, no answer within 10 s)'
            cand --oauth-client-id 'A client registered beforehand at the authorization server (its secret, if any, from MCPGUARD_OAUTH_CLIENT_SECRET; never a flag). Default: the client registered by this login before, else a Client ID Metadata Document, else dynamic registration'
            cand --oauth-client-metadata-url 'This client''s Client ID Metadata Document (an https URL), used where the authorization server takes one'
            cand --oauth-callback-port 'The loopback port the sign-in comes back to (default: any free one). Fix it when the authorization server only takes the redirect URI it registered'
            cand --oauth-store 'Where logins are kept (0600 files, one per server and authorization server). Default: $MCPGUARD_OAUTH_STORE, else ~/.config/mcpguard/oauth'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand --update-baseline 'Write this audit''s per-tool sizes to --baseline (atomically) instead of comparing'
            cand --update-pins 'Write the tools this live audit saw to --pins (atomically) as their pins'
            cand --oauth 'Sign in with OAuth when the server asks (a 401): its metadata found as the MCP authorization spec says, the client registered (or --oauth-client-id), the sign-in URL opened with $BROWSER or the system''s opener (and printed), the redirect taken on a loopback port; a 403 for more scope signs in again with it. The login is kept in the OAuth store and used by the next run (and by `mcpguard auth`, `proxy --url`)'
            cand --probe 'Also call every tool annotated readOnlyHint whose required arguments have a default, enum, const or example in its schema; no other tool is ever called'
            cand --ask-legacy 'Also ask a 2026-07-28 server, on a connection of its own, whether it answers a 2025-11-25 client''s initialize (dual-era). Off by default: that initialize has no _meta, which a modern-only server may count against the client; the servers table then says "(legacy not asked)"'
            cand --oauth-client-credentials 'Tokens for the client itself (client_credentials, for CI) instead of a user''s sign-in; needs --oauth-client-id and MCPGUARD_OAUTH_CLIENT_SECRET'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mcpguard;estimate'= {
            cand --tokenizer 'Token counter. Default: the config''s `tokenizer` (auto)'
            cand --top 'How many JSON paths to list under "where the tokens go" (0 for none)'
            cand --max-tokens 'Exit 1 when any document is over N tokens: a one-line CI gate'
            cand --client 'Clients to judge each response against (comma-separated): claude-code, copilot-cli, opencode, or a profile from the config''s `clients`'
            cand --format 'Output format'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand --compare 'Count with every counter, side by side, each with its error against claude'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mcpguard;paginate'= {
            cand --path 'JSON pointer of the list (inside a tool result''s JSON text), e.g. /data/items'
            cand --limit 'Items per page. Default: the config''s defaultPageSize (50); at most maxPageSize (200)'
            cand --cursor 'The nextCursor of the previous page'
            cand --order-by 'Sort by FIELD (dotted for nested: price.total), ascending unless :desc. The sort is stable'
            cand --where 'Keep only the items that pass: FIELD=VALUE, FIELD!=VALUE, FIELD>N (>=, <, <=; numbers and ISO dates), FIELD~TEXT (contains, any case), FIELD in (A, B); nested fields dotted (customer.city). Repeatable, or joined by `and`: all must hold. --filter is the same'
            cand --filter 'Keep only the items that pass: FIELD=VALUE, FIELD!=VALUE, FIELD>N (>=, <, <=; numbers and ISO dates), FIELD~TEXT (contains, any case), FIELD in (A, B); nested fields dotted (customer.city). Repeatable, or joined by `and`: all must hold. --filter is the same'
            cand --aggregate 'Figures instead of a page: count, sum(FIELD), avg(FIELD), min(FIELD), max(FIELD) over the items that pass --where (no cursor, no secret needed)'
            cand --group-by 'With --aggregate: the figures per value of this field, largest groups first'
            cand --budget 'Shrink the page until its output fits this many tokens; meta.heldBack says how many items were left for the next page'
            cand --tokenizer 'Token counter for --budget. Default: the config''s `tokenizer` (auto)'
            cand --format 'json: one page; jsonl: one page per line (the format of --all)'
            cand --secret-file 'File of cursor secrets, one per line (the first signs, all verify). Default: $MCPGUARD_CURSOR_SECRET'
            cand --at 'Take this Unix time as now (reproducible cursors and expiry checks)'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand --all 'Every page from here to the end, one per line (--format jsonl)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mcpguard;summarize'= {
            cand --fields 'Fields to keep per record: dotted paths (id,status,price.total), a section (priceBreakdown, returned in full), or `all`. Default: the config''s projection map for the record type, else the identifying and primary fields'
            cand --budget 'Tokens the output may cost. Default: the config''s tokenBudgetThreshold (4000)'
            cand --tool 'The tool the response came from: its `endpoints:` entry in the config sets the limits and the fields'
            cand --tokenizer 'Token counter for the budget. Default: the config''s `tokenizer` (auto)'
            cand --output-schema 'The tool''s outputSchema (or its tools/list entry): structuredContent is kept, valid against it'
            cand --artifact-dir 'Where artifacts are stored. Default: the config''s artifactDir (.mcpguard/artifacts)'
            cand --domain 'The artifact''s domain (ax://DOMAIN/ID). Default: the list''s name, else the kind of document'
            cand --format 'Format of the --report: a table, or JSON for scripts'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand --force 'Summarize even a response that fits'
            cand --drop-empty 'Drop null, "", [] and {} members'
            cand --table 'Write a list of records as `columns` and `rows` (keys once, not per record)'
            cand --no-artifact 'Do not store the full input (the output then has no artifactRef)'
            cand --report 'Print a before/after size table (bytes, tokens, each fix''s savings) to stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mcpguard;decode-cursor'= {
            cand --data 'Check the cursor against this data: has the list changed since it was issued?'
            cand --path 'JSON pointer of the list in --data (as for paginate)'
            cand --secret-file 'File of cursor secrets, one per line (the first signs, all verify). Default: $MCPGUARD_CURSOR_SECRET'
            cand --at 'Take this Unix time as now (reproducible cursors and expiry checks)'
            cand --format 'Output format'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mcpguard;chunk'= {
            cand --max-tokens 'Tokens per chunk. Default: the config''s chunkSize (2000)'
            cand --max-lines 'Lines per chunk. Default: the config''s chunkMaxLines (200)'
            cand --kind 'What the text is (detected from the name and the first 64 KB otherwise)'
            cand --cursor 'The nextCursor of the previous chunk'
            cand --lines 'Just these lines, 1-based and inclusive: 100:200, 100: (to the end), or 100'
            cand --match 'Find instead of chunk: every entry (log entry with its stack trace, Markdown block, JSONL record; in plain text, the line) that matches this regular expression (the regex crate''s syntax; (?i) for any case), whole, under `--- lines A-B`'
            cand --context 'With --match: N lines of context before and after each match (at most 50)'
            cand --format 'json: one chunk; jsonl: one chunk per line; text: the bare content, for a pager'
            cand --tokenizer 'Token counter for --max-tokens. Default: the config''s `tokenizer` (auto)'
            cand --secret-file 'File of cursor secrets, one per line (the first signs, all verify). Default: $MCPGUARD_CURSOR_SECRET'
            cand --at 'Take this Unix time as now (reproducible cursors and expiry checks)'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand --all 'Every chunk from here to the end (--format jsonl: one per line; text: the bare content)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mcpguard;validate-config'= {
            cand --format 'Output format'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand --print-defaults 'Print the documented default config (YAML) and exit'
            cand --show-effective 'Show every effective value and where it came from (default, file:line, env)'
            cand --watch 'Keep running: re-validate on every save, print old -> new values, keep the last good config when a save is invalid. Stop with Ctrl-C'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mcpguard;proxy'= {
            cand --server 'The server to run: ''CMD ARGS'', split as a shell would (no shell runs). Or give the command after `--`'
            cand --mcp-config 'A client''s server list (mcpServers of Claude Desktop, Claude Code''s .mcp.json). With one --name: that server alone. Without (or with several): the gateway, one MCP server in front of all of them, tools named SERVER__TOOL'
            cand --name 'A server of --mcp-config (repeatable: the gateway over those only)'
            cand --catalog-cache 'Gateway: where server catalogs are kept between runs. Default: $XDG_CACHE_HOME/mcpguard/catalogs, else ~/.cache/mcpguard/catalogs'
            cand --pins 'Gateway: the pins file, the SHA-256 of every tool definition seen (config `pins`: warn logs a changed one, hold keeps it back until `mcpguard pins approve`). Default: one per --mcp-config file in $XDG_CONFIG_HOME/mcpguard/pins (else ~/.config/...)'
            cand --timeout 'Seconds a request may wait for the server before the client gets an error (the session lives on)'
            cand --max-message-bytes 'The largest message read from either side; a larger one is answered with an error'
            cand --metrics 'Write one record per request to this file (JSON lines): outcome, bytes and tokens before and after, upstream latency, proxy overhead'
            cand --metrics-max-bytes 'Rotate --metrics to FILE.1 when it passes this size'
            cand --accuracy-sample 'Share of results whose token estimate is checked against Claude''s exact count (recorded as exactTokensBefore; a difference over 25% is logged). 0 turns it off'
            cand --log-format 'The log on stderr: text for people, json for log collectors'
            cand --artifact-dir 'Where full results are kept. Default: the config''s artifactDir'
            cand --artifact-ttl 'How long a full result is kept, e.g. 1h, 30m'
            cand --artifact-cap 'The store''s size cap in bytes; the oldest results go first'
            cand --secret-file 'File of cursor secrets, one per line (the first signs, all verify). Default: $MCPGUARD_CURSOR_SECRET'
            cand --at 'Take this Unix time as now (reproducible cursors and expiry checks)'
            cand --listen 'Serve Streamable HTTP at http://ADDR/mcp to many clients, in front of --url or of the server''s command. Needs MCPGUARD_CURSOR_SECRET (or --secret-file), shared by every instance'
            cand --url 'A remote server''s Streamable HTTP endpoint. Without --listen: the stdio bridge a stdio-only client starts (signing in with OAuth when the server asks, the login kept for the next start); with --listen: the upstream of the HTTP proxy'
            cand --remote-entry 'What a client''s remote entry was before `mcpguard install` made it this bridge (its URL member and type), for `uninstall`; nothing else reads it'
            cand --header 'A header sent to --url on every request, ''Name: value'' (repeatable); ${VAR} in the value is read from the environment. Never logged'
            cand --store 'Where full results go with --listen: redis://HOST:PORT/DB (shared by instances) or a directory. Default: --artifact-dir, else the config''s artifactDir'
            cand --metrics-listen 'Serve Prometheus metrics at http://ADDR/metrics and readiness at /health'
            cand --allowed-host 'A Host (and Origin) the listener answers besides its own names, as HOST or HOST:PORT (repeat it for more). On a loopback address only localhost, 127.0.0.1 and [::1] are answered otherwise (DNS-rebinding protection: 421 for another Host, 403 for another Origin); on any other address nothing is checked unless this is given'
            cand --max-request-bytes 'The largest request body a client may send (413 beyond)'
            cand --max-concurrent 'Requests to the server at once; more wait in the queue'
            cand --queue 'Requests that may wait for a place; more get 503 and a JSON-RPC error at once'
            cand --shutdown-grace 'On SIGTERM, how long requests in flight may take to finish'
            cand --oauth-client-id 'A client registered beforehand at the authorization server (its secret, if any, from MCPGUARD_OAUTH_CLIENT_SECRET; never a flag). Default: the client registered by this login before, else a Client ID Metadata Document, else dynamic registration'
            cand --oauth-client-metadata-url 'This client''s Client ID Metadata Document (an https URL), used where the authorization server takes one'
            cand --oauth-callback-port 'The loopback port the sign-in comes back to (default: any free one). Fix it when the authorization server only takes the redirect URI it registered'
            cand --oauth-store 'Where logins are kept (0600 files, one per server and authorization server). Default: $MCPGUARD_OAUTH_STORE, else ~/.config/mcpguard/oauth'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand --eager 'Gateway: start every server at once and keep it, rather than on first use'
            cand --status 'Gateway: print each server''s state (running or not, tools, catalog cached when, last error) and exit'
            cand --route-only 'The gateway''s routing alone on stdin and stdout, without the policy: what --listen starts as its command'
            cand --shadow 'Change nothing: pass every message as it is and log what would have been done'
            cand --quiet 'Log warnings and errors only, not every decision'
            cand --no-artifacts 'Keep no full results: shrunk results are previews without a reference'
            cand --oauth 'With --listen --url: hold the remote server''s OAuth login (made once with `mcpguard auth login --url URL`) and send it upstream in place of the client''s; refresh it when it expires or the server answers 401. Clients connect with no OAuth of their own. The stdio bridge (--url without --listen) always signs in when the server asks'
            cand --oauth-client-credentials 'Tokens for the client itself (client_credentials, for CI) instead of a user''s sign-in; needs --oauth-client-id and MCPGUARD_OAUTH_CLIENT_SECRET'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mcpguard;install'= {
            cand --client 'The client whose servers to change, where it keeps them'
            cand --scope 'Which of the client''s server lists. Default: local for claude-code (as `claude mcp add`), every one whose file exists for the others'
            cand --name 'Only this server (repeatable). Default: every server in the list'
            cand --format 'With --list: table or json'
            cand --mcpguard 'The command that starts mcpguard in the config (`"npx -y mcpguard"` splits as a shell would). Default: this mcpguard''s full path (clients such as Claude Desktop start servers without your shell''s PATH), or `npx -y mcpguard` / `uvx mcpguard` when this mcpguard runs from npx''s or uvx''s cache, which may be emptied'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand --claude-desktop 'Claude Desktop''s config (the same as --client claude-desktop)'
            cand --dry-run 'Say what would change; write nothing'
            cand --list 'List every client config found on this machine (for this directory''s project too), its servers, and which are behind the proxy; change nothing'
            cand --gateway 'Put the chosen servers of each list behind one gateway entry (`mcpguard proxy --mcp-config FILE`, the servers moved to FILE in ~/.config/mcpguard/gateways/), rather than each behind a proxy of its own. `uninstall` puts them back'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mcpguard;uninstall'= {
            cand --client 'The client whose servers to change, where it keeps them'
            cand --scope 'Which of the client''s server lists. Default: local for claude-code (as `claude mcp add`), every one whose file exists for the others'
            cand --name 'Only this server (repeatable). Default: every server in the list'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand --claude-desktop 'Claude Desktop''s config (the same as --client claude-desktop)'
            cand --dry-run 'Say what would change; write nothing'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mcpguard;auth'= {
            cand --oauth-client-id 'A client registered beforehand at the authorization server (its secret, if any, from MCPGUARD_OAUTH_CLIENT_SECRET; never a flag). Default: the client registered by this login before, else a Client ID Metadata Document, else dynamic registration'
            cand --oauth-client-metadata-url 'This client''s Client ID Metadata Document (an https URL), used where the authorization server takes one'
            cand --oauth-callback-port 'The loopback port the sign-in comes back to (default: any free one). Fix it when the authorization server only takes the redirect URI it registered'
            cand --oauth-store 'Where logins are kept (0600 files, one per server and authorization server). Default: $MCPGUARD_OAUTH_STORE, else ~/.config/mcpguard/oauth'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand --oauth-client-credentials 'Tokens for the client itself (client_credentials, for CI) instead of a user''s sign-in; needs --oauth-client-id and MCPGUARD_OAUTH_CLIENT_SECRET'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand login 'Sign in to a server in the browser and keep the login (replacing one kept before)'
            cand status 'The logins kept: server, authorization server, client, scopes, expiry. No tokens'
            cand logout 'Forget a server''s login'
            cand header 'Print a fresh Authorization header for a server (refreshed when it is about to expire), as the JSON object a headersHelper prints, or as an HTTP header line'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mcpguard;auth;login'= {
            cand --url 'The server''s Streamable HTTP endpoint'
            cand --timeout 'Seconds to wait for the browser to come back'
            cand --oauth-client-id 'A client registered beforehand at the authorization server (its secret, if any, from MCPGUARD_OAUTH_CLIENT_SECRET; never a flag). Default: the client registered by this login before, else a Client ID Metadata Document, else dynamic registration'
            cand --oauth-client-metadata-url 'This client''s Client ID Metadata Document (an https URL), used where the authorization server takes one'
            cand --oauth-callback-port 'The loopback port the sign-in comes back to (default: any free one). Fix it when the authorization server only takes the redirect URI it registered'
            cand --oauth-store 'Where logins are kept (0600 files, one per server and authorization server). Default: $MCPGUARD_OAUTH_STORE, else ~/.config/mcpguard/oauth'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand --oauth-client-credentials 'Tokens for the client itself (client_credentials, for CI) instead of a user''s sign-in; needs --oauth-client-id and MCPGUARD_OAUTH_CLIENT_SECRET'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mcpguard;auth;status'= {
            cand --url 'Only this server''s login (exit 1 when there is none)'
            cand --format 'format'
            cand --oauth-client-id 'A client registered beforehand at the authorization server (its secret, if any, from MCPGUARD_OAUTH_CLIENT_SECRET; never a flag). Default: the client registered by this login before, else a Client ID Metadata Document, else dynamic registration'
            cand --oauth-client-metadata-url 'This client''s Client ID Metadata Document (an https URL), used where the authorization server takes one'
            cand --oauth-callback-port 'The loopback port the sign-in comes back to (default: any free one). Fix it when the authorization server only takes the redirect URI it registered'
            cand --oauth-store 'Where logins are kept (0600 files, one per server and authorization server). Default: $MCPGUARD_OAUTH_STORE, else ~/.config/mcpguard/oauth'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand --oauth-client-credentials 'Tokens for the client itself (client_credentials, for CI) instead of a user''s sign-in; needs --oauth-client-id and MCPGUARD_OAUTH_CLIENT_SECRET'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mcpguard;auth;logout'= {
            cand --url 'url'
            cand --oauth-client-id 'A client registered beforehand at the authorization server (its secret, if any, from MCPGUARD_OAUTH_CLIENT_SECRET; never a flag). Default: the client registered by this login before, else a Client ID Metadata Document, else dynamic registration'
            cand --oauth-client-metadata-url 'This client''s Client ID Metadata Document (an https URL), used where the authorization server takes one'
            cand --oauth-callback-port 'The loopback port the sign-in comes back to (default: any free one). Fix it when the authorization server only takes the redirect URI it registered'
            cand --oauth-store 'Where logins are kept (0600 files, one per server and authorization server). Default: $MCPGUARD_OAUTH_STORE, else ~/.config/mcpguard/oauth'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand --oauth-client-credentials 'Tokens for the client itself (client_credentials, for CI) instead of a user''s sign-in; needs --oauth-client-id and MCPGUARD_OAUTH_CLIENT_SECRET'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mcpguard;auth;header'= {
            cand --url 'url'
            cand --format 'format'
            cand --oauth-client-id 'A client registered beforehand at the authorization server (its secret, if any, from MCPGUARD_OAUTH_CLIENT_SECRET; never a flag). Default: the client registered by this login before, else a Client ID Metadata Document, else dynamic registration'
            cand --oauth-client-metadata-url 'This client''s Client ID Metadata Document (an https URL), used where the authorization server takes one'
            cand --oauth-callback-port 'The loopback port the sign-in comes back to (default: any free one). Fix it when the authorization server only takes the redirect URI it registered'
            cand --oauth-store 'Where logins are kept (0600 files, one per server and authorization server). Default: $MCPGUARD_OAUTH_STORE, else ~/.config/mcpguard/oauth'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand --oauth-client-credentials 'Tokens for the client itself (client_credentials, for CI) instead of a user''s sign-in; needs --oauth-client-id and MCPGUARD_OAUTH_CLIENT_SECRET'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mcpguard;auth;help'= {
            cand login 'Sign in to a server in the browser and keep the login (replacing one kept before)'
            cand status 'The logins kept: server, authorization server, client, scopes, expiry. No tokens'
            cand logout 'Forget a server''s login'
            cand header 'Print a fresh Authorization header for a server (refreshed when it is about to expire), as the JSON object a headersHelper prints, or as an HTTP header line'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mcpguard;auth;help;login'= {
        }
        &'mcpguard;auth;help;status'= {
        }
        &'mcpguard;auth;help;logout'= {
        }
        &'mcpguard;auth;help;header'= {
        }
        &'mcpguard;auth;help;help'= {
        }
        &'mcpguard;pins'= {
            cand --mcp-config 'The gateway''s server list: its pins file is the one in the user''s config folder'
            cand --pins 'A pins file (the one `proxy --pins` or `audit --pins` uses)'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list 'Every pinned tool by server, and the changes waiting for approval with what changed'
            cand approve 'Make the pending definitions of a server, or of one SERVER__TOOL, the pins'
            cand forget 'Drop the pins of a server, or of one SERVER__TOOL: the next sight pins them afresh'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mcpguard;pins;list'= {
            cand --format 'format'
            cand --mcp-config 'The gateway''s server list: its pins file is the one in the user''s config folder'
            cand --pins 'A pins file (the one `proxy --pins` or `audit --pins` uses)'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mcpguard;pins;approve'= {
            cand --mcp-config 'The gateway''s server list: its pins file is the one in the user''s config folder'
            cand --pins 'A pins file (the one `proxy --pins` or `audit --pins` uses)'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mcpguard;pins;forget'= {
            cand --mcp-config 'The gateway''s server list: its pins file is the one in the user''s config folder'
            cand --pins 'A pins file (the one `proxy --pins` or `audit --pins` uses)'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mcpguard;pins;help'= {
            cand list 'Every pinned tool by server, and the changes waiting for approval with what changed'
            cand approve 'Make the pending definitions of a server, or of one SERVER__TOOL, the pins'
            cand forget 'Drop the pins of a server, or of one SERVER__TOOL: the next sight pins them afresh'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mcpguard;pins;help;list'= {
        }
        &'mcpguard;pins;help;approve'= {
        }
        &'mcpguard;pins;help;forget'= {
        }
        &'mcpguard;pins;help;help'= {
        }
        &'mcpguard;artifacts'= {
            cand --artifact-dir 'The store. Default: the config''s artifactDir'
            cand --ttl 'How long an artifact lives, e.g. 1h, 30m'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list 'Every artifact, oldest first: reference, size, age, expired or not'
            cand show 'Write one artifact''s bytes to stdout, exactly as stored; or find in it (--match, --where, --aggregate)'
            cand gc 'Remove what expired, then the oldest until the store is under --cap'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mcpguard;artifacts;list'= {
            cand --format 'format'
            cand --artifact-dir 'The store. Default: the config''s artifactDir'
            cand --ttl 'How long an artifact lives, e.g. 1h, 30m'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mcpguard;artifacts;show'= {
            cand --match 'The entries of its text that match this regular expression, whole (log entries with their stack traces, Markdown blocks, JSONL records, else lines); on a list of records, the records whose JSON matches'
            cand --context 'With --match on text: N lines of context around each match (at most 50)'
            cand --where 'Only the records that pass (as paginate --where): status=cancelled, total>100, title~refund, status in (a, b); repeatable, all must hold'
            cand --order-by 'Records sorted by FIELD (FIELD:desc for largest first)'
            cand --aggregate 'Figures instead of records: count, sum(FIELD), avg(FIELD), min(FIELD), max(FIELD)'
            cand --group-by 'With --aggregate: the figures per value of this field'
            cand --artifact-dir 'The store. Default: the config''s artifactDir'
            cand --ttl 'How long an artifact lives, e.g. 1h, 30m'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mcpguard;artifacts;gc'= {
            cand --cap 'The store''s size cap in bytes'
            cand --artifact-dir 'The store. Default: the config''s artifactDir'
            cand --ttl 'How long an artifact lives, e.g. 1h, 30m'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mcpguard;artifacts;help'= {
            cand list 'Every artifact, oldest first: reference, size, age, expired or not'
            cand show 'Write one artifact''s bytes to stdout, exactly as stored; or find in it (--match, --where, --aggregate)'
            cand gc 'Remove what expired, then the oldest until the store is under --cap'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mcpguard;artifacts;help;list'= {
        }
        &'mcpguard;artifacts;help;show'= {
        }
        &'mcpguard;artifacts;help;gc'= {
        }
        &'mcpguard;artifacts;help;help'= {
        }
        &'mcpguard;generate'= {
            cand --out 'Directory to write into (created if missing)'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mcpguard;help'= {
            cand audit 'Lint captured responses or live servers (stdio, Streamable HTTP, a client''s server list) against the contract: findings with JSON pointers and savings, per-tool statistics, client verdicts, baselines; table, JSON, SARIF, JUnit, GitHub, Markdown'
            cand estimate 'Measure documents: bytes, what the model sees, tokens, budget, client verdicts, and where the tokens go'
            cand paginate 'Cut one page of a list (a JSON array, a document holding one, an MCP tool result) with a signed nextCursor; --cursor fetches the next page'
            cand summarize 'Shrink a response so it fits the budget and the contract, with the full data stored as an artifact (ax://DOMAIN/ID): projected fields, summarized text, bloat removed'
            cand decode-cursor 'Show what a cursor carries, when it was issued, when it expires, and whether it verifies'
            cand chunk 'Read large text (logs, documents, JSONL, a tool result''s text) in chunks cut at semantic boundaries, with a cursor for the next; --lines for a range'
            cand validate-config 'Check a config file against the schema and the range rules; print the defaults or the effective config; watch a file and re-validate on every save'
            cand proxy 'Stand between an MCP client and a server (stdio): results that fit pass byte for byte, the rest come back shrunk with the full data one tool call away'
            cand install 'Rewrite a client''s MCP config (Claude Code in each scope, Claude Desktop, Cursor, VS Code, Codex, Gemini CLI, Windsurf, or a file) so its servers start through `mcpguard proxy`, every other byte kept; `--list` shows them all'
            cand uninstall 'Undo `install`: the servers start their own commands again'
            cand auth 'Sign in to remote servers (OAuth) and keep the login for the proxy and the audit: login, status, logout, and a fresh Authorization header for a client''s headersHelper'
            cand pins 'The tool definitions the gateway has pinned: list them with the changes waiting for a person, approve a change (a held tool is listed again), forget pins'
            cand artifacts 'List, show and clear out the full results shrunk responses point at (ax://DOMAIN/ID)'
            cand generate 'Write shell completions and the man page (for packagers; used to refresh completions/)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mcpguard;help;audit'= {
        }
        &'mcpguard;help;estimate'= {
        }
        &'mcpguard;help;paginate'= {
        }
        &'mcpguard;help;summarize'= {
        }
        &'mcpguard;help;decode-cursor'= {
        }
        &'mcpguard;help;chunk'= {
        }
        &'mcpguard;help;validate-config'= {
        }
        &'mcpguard;help;proxy'= {
        }
        &'mcpguard;help;install'= {
        }
        &'mcpguard;help;uninstall'= {
        }
        &'mcpguard;help;auth'= {
            cand login 'Sign in to a server in the browser and keep the login (replacing one kept before)'
            cand status 'The logins kept: server, authorization server, client, scopes, expiry. No tokens'
            cand logout 'Forget a server''s login'
            cand header 'Print a fresh Authorization header for a server (refreshed when it is about to expire), as the JSON object a headersHelper prints, or as an HTTP header line'
        }
        &'mcpguard;help;auth;login'= {
        }
        &'mcpguard;help;auth;status'= {
        }
        &'mcpguard;help;auth;logout'= {
        }
        &'mcpguard;help;auth;header'= {
        }
        &'mcpguard;help;pins'= {
            cand list 'Every pinned tool by server, and the changes waiting for approval with what changed'
            cand approve 'Make the pending definitions of a server, or of one SERVER__TOOL, the pins'
            cand forget 'Drop the pins of a server, or of one SERVER__TOOL: the next sight pins them afresh'
        }
        &'mcpguard;help;pins;list'= {
        }
        &'mcpguard;help;pins;approve'= {
        }
        &'mcpguard;help;pins;forget'= {
        }
        &'mcpguard;help;artifacts'= {
            cand list 'Every artifact, oldest first: reference, size, age, expired or not'
            cand show 'Write one artifact''s bytes to stdout, exactly as stored; or find in it (--match, --where, --aggregate)'
            cand gc 'Remove what expired, then the oldest until the store is under --cap'
        }
        &'mcpguard;help;artifacts;list'= {
        }
        &'mcpguard;help;artifacts;show'= {
        }
        &'mcpguard;help;artifacts;gc'= {
        }
        &'mcpguard;help;generate'= {
        }
        &'mcpguard;help;help'= {
        }
    ]
    $completions[$command]
}
