# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_mcpguard_global_optspecs
    string join \n config= color= h/help V/version
end

function __fish_mcpguard_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_mcpguard_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_mcpguard_using_subcommand
    set -l cmd (__fish_mcpguard_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c mcpguard -n "__fish_mcpguard_needs_command" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_needs_command" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mcpguard -n "__fish_mcpguard_needs_command" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_needs_command" -f -a "audit" -d 'Lint captured responses or live servers (stdio, Streamable HTTP, a client\'s server list) against the contract: findings with JSON pointers and savings, per-tool statistics, client verdicts, baselines; table, JSON, SARIF, JUnit, GitHub, Markdown'
complete -c mcpguard -n "__fish_mcpguard_needs_command" -f -a "estimate" -d 'Measure documents: bytes, what the model sees, tokens, budget, client verdicts, and where the tokens go'
complete -c mcpguard -n "__fish_mcpguard_needs_command" -f -a "paginate" -d 'Cut one page of a list (a JSON array, a document holding one, an MCP tool result) with a signed nextCursor; --cursor fetches the next page'
complete -c mcpguard -n "__fish_mcpguard_needs_command" -f -a "summarize" -d 'Shrink a response so it fits the budget and the contract, with the full data stored as an artifact (ax://DOMAIN/ID): projected fields, summarized text, bloat removed'
complete -c mcpguard -n "__fish_mcpguard_needs_command" -f -a "decode-cursor" -d 'Show what a cursor carries, when it was issued, when it expires, and whether it verifies'
complete -c mcpguard -n "__fish_mcpguard_needs_command" -f -a "chunk" -d 'Read large text (logs, documents, JSONL, a tool result\'s text) in chunks cut at semantic boundaries, with a cursor for the next; --lines for a range'
complete -c mcpguard -n "__fish_mcpguard_needs_command" -f -a "validate-config" -d 'Check a config file against the schema and the range rules; print the defaults or the effective config; watch a file and re-validate on every save'
complete -c mcpguard -n "__fish_mcpguard_needs_command" -f -a "proxy" -d 'Stand between an MCP client and a server (stdio): results that fit pass byte for byte, the rest come back shrunk with the full data one tool call away'
complete -c mcpguard -n "__fish_mcpguard_needs_command" -f -a "install" -d 'Rewrite a client\'s MCP config (Claude Code in each scope, Claude Desktop, Cursor, VS Code, Codex, Gemini CLI, Windsurf, or a file) so its servers start through `mcpguard proxy`, every other byte kept; `--list` shows them all'
complete -c mcpguard -n "__fish_mcpguard_needs_command" -f -a "uninstall" -d 'Undo `install`: the servers start their own commands again'
complete -c mcpguard -n "__fish_mcpguard_needs_command" -f -a "auth" -d 'Sign in to remote servers (OAuth) and keep the login for the proxy and the audit: login, status, logout, and a fresh Authorization header for a client\'s headersHelper'
complete -c mcpguard -n "__fish_mcpguard_needs_command" -f -a "pins" -d 'The tool definitions the gateway has pinned: list them with the changes waiting for a person, approve a change (a held tool is listed again), forget pins'
complete -c mcpguard -n "__fish_mcpguard_needs_command" -f -a "artifacts" -d 'List, show and clear out the full results shrunk responses point at (ax://DOMAIN/ID)'
complete -c mcpguard -n "__fish_mcpguard_needs_command" -f -a "generate" -d 'Write shell completions and the man page (for packagers; used to refresh completions/)'
complete -c mcpguard -n "__fish_mcpguard_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l format -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''
sarif\t''
junit\t''
github\t''
markdown\t''
html\t'One self-contained page of charts and a table that sorts and filters'"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -s o -l output -d 'Write the report to FILE (atomically: whole or not at all) instead of stdout' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l fail-on -d 'Exit 1 when a finding is at or above this severity' -r -f -a "error\t''
warning\t''
info\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l client -d 'Clients to judge each response against (comma-separated): claude-code, copilot-cli, opencode, or a profile from the config\'s `clients`' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l contract -d 'A response contract (JSON Schema, e.g. contracts/response.schema.json): turns on contract mode (a summary is required, MG006) and checks every payload against it (MG017)' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l tokenizer -d 'Token counter. Default: the config\'s `tokenizer` (auto: exact claude counts near a limit)' -r -f -a "auto\t'claude-fast, and the exact claude count wherever the estimate lands near a limit that decides a verdict (budget, hard cap, a client limit, --max-tokens). The default'
claude\t'Claude Opus 4.7 and later (Opus 4.8, Sonnet 5): ctok 1.3.0\'s offline reconstruction of the current tokenizer, exact against ctok. A reconstruction, not Anthropic\'s tokenizer'
claude-v3\t'Claude 3 through Opus 4.6: ctok 1.3.0\'s reconstruction of that tokenizer'
claude-fast\t'An estimate of claude: character classes (GB/s), scaled by 2 KB of each response counted exactly'
claude-legacy\t'The legacy BPE of @anthropic-ai/tokenizer, made for models before Claude 3: undercounts current models; kept for comparison'
heuristic\t'Seed R001: floor(chars/4) + 20%. What the seed\'s servers budget with'
o200k\t'OpenAI o200k_base (GPT-4o, GPT-4.1, GPT-5)'
cl100k\t'OpenAI cl100k_base (GPT-4, GPT-3.5)'"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l baseline -d 'Per-tool sizes from an earlier audit: fail when a tool grows past --max-growth or an entry is stale' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l max-growth -d 'Allowed growth of a tool\'s p95 response size over the baseline, in percent' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l pins -d 'A pins file (`mcpguard pins`): a live server\'s tool whose definition differs from its pin, or a new tool of a pinned server, is MG036 (an error)' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l shard -d 'Audit only shard K of N (1-based), split by a hash of each document\'s name: the same split on every machine, for parallel CI jobs' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l metrics -d 'Write one telemetry record per response (JSONL). A failure to write warns and never fails the audit' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l from-metrics -d 'Summarise a --metrics file (the audit\'s or the proxy\'s) by tool and outcome instead of auditing; with --format html, as pictures' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l top -d 'How many of the worst findings the table and Markdown list' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l server -d 'Spawn this server and audit it over stdio: \'CMD ARGS\', split as a shell would (no shell runs). Or give the command after `--`' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l url -d 'Audit a Streamable HTTP server at this URL' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l header -d 'A header for --url, \'Name: value\' (repeatable). ${VAR} in the value is read from the environment; values are never printed' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l mcp-config -d 'A client\'s server list (the mcpServers of Claude Desktop, Claude Code\'s .mcp.json, ...): every server in it is audited, or only --name' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l name -d 'The server to audit from --mcp-config; with --server or --url, the name reports use' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l calls -d 'Tool calls to make (YAML or JSON): a list of {tool, arguments, expect: {maxBytes, isError, contains}}' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l save -d 'Write each session as DIR/NAME.jsonl (what was exchanged, exactly) and the server\'s stderr as DIR/NAME.stderr.log; `mcpguard audit DIR` reads them again' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l timeout -d 'Seconds one request may take' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l timeout-total -d 'Seconds a whole session may take' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l max-message-bytes -d 'The largest message accepted from a server' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l max-pages -d 'Pages of one list followed at most' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l protocol -d 'The MCP era to speak. auto: probe with server/discover and speak 2026-07-28 (stateless, _meta on every request) to a server that lists it; open a 2025-11-25 session with initialize when the probe shows a legacy server (any answer that is not a DiscoverResult, an error status, no answer within 10 s)' -r -f -a "auto\t''
2026-07-28\t''
2025-11-25\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l oauth-client-id -d 'A client registered beforehand at the authorization server (its secret, if any, from MCPGUARD_OAUTH_CLIENT_SECRET; never a flag). Default: the client registered by this login before, else a Client ID Metadata Document, else dynamic registration' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l oauth-client-metadata-url -d 'This client\'s Client ID Metadata Document (an https URL), used where the authorization server takes one' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l oauth-callback-port -d 'The loopback port the sign-in comes back to (default: any free one). Fix it when the authorization server only takes the redirect URI it registered' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l oauth-store -d 'Where logins are kept (0600 files, one per server and authorization server). Default: $MCPGUARD_OAUTH_STORE, else ~/.config/mcpguard/oauth' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l update-baseline -d 'Write this audit\'s per-tool sizes to --baseline (atomically) instead of comparing'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l update-pins -d 'Write the tools this live audit saw to --pins (atomically) as their pins'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l oauth -d 'Sign in with OAuth when the server asks (a 401): its metadata found as the MCP authorization spec says, the client registered (or --oauth-client-id), the sign-in URL opened with $BROWSER or the system\'s opener (and printed), the redirect taken on a loopback port; a 403 for more scope signs in again with it. The login is kept in the OAuth store and used by the next run (and by `mcpguard auth`, `proxy --url`)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l probe -d 'Also call every tool annotated readOnlyHint whose required arguments have a default, enum, const or example in its schema; no other tool is ever called'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l ask-legacy -d 'Also ask a 2026-07-28 server, on a connection of its own, whether it answers a 2025-11-25 client\'s initialize (dual-era). Off by default: that initialize has no _meta, which a modern-only server may count against the client; the servers table then says "(legacy not asked)"'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -l oauth-client-credentials -d 'Tokens for the client itself (client_credentials, for CI) instead of a user\'s sign-in; needs --oauth-client-id and MCPGUARD_OAUTH_CLIENT_SECRET'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand audit" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand estimate" -l tokenizer -d 'Token counter. Default: the config\'s `tokenizer` (auto)' -r -f -a "auto\t'claude-fast, and the exact claude count wherever the estimate lands near a limit that decides a verdict (budget, hard cap, a client limit, --max-tokens). The default'
claude\t'Claude Opus 4.7 and later (Opus 4.8, Sonnet 5): ctok 1.3.0\'s offline reconstruction of the current tokenizer, exact against ctok. A reconstruction, not Anthropic\'s tokenizer'
claude-v3\t'Claude 3 through Opus 4.6: ctok 1.3.0\'s reconstruction of that tokenizer'
claude-fast\t'An estimate of claude: character classes (GB/s), scaled by 2 KB of each response counted exactly'
claude-legacy\t'The legacy BPE of @anthropic-ai/tokenizer, made for models before Claude 3: undercounts current models; kept for comparison'
heuristic\t'Seed R001: floor(chars/4) + 20%. What the seed\'s servers budget with'
o200k\t'OpenAI o200k_base (GPT-4o, GPT-4.1, GPT-5)'
cl100k\t'OpenAI cl100k_base (GPT-4, GPT-3.5)'"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand estimate" -l top -d 'How many JSON paths to list under "where the tokens go" (0 for none)' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand estimate" -l max-tokens -d 'Exit 1 when any document is over N tokens: a one-line CI gate' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand estimate" -l client -d 'Clients to judge each response against (comma-separated): claude-code, copilot-cli, opencode, or a profile from the config\'s `clients`' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand estimate" -l format -d 'Output format' -r -f -a "table\t'A table for people'
json\t'Pretty JSON with a stable key order (schemas in contracts/schemas/)'"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand estimate" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand estimate" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand estimate" -l compare -d 'Count with every counter, side by side, each with its error against claude'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand estimate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand estimate" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand paginate" -l path -d 'JSON pointer of the list (inside a tool result\'s JSON text), e.g. /data/items' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand paginate" -l limit -d 'Items per page. Default: the config\'s defaultPageSize (50); at most maxPageSize (200)' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand paginate" -l cursor -d 'The nextCursor of the previous page' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand paginate" -l order-by -d 'Sort by FIELD (dotted for nested: price.total), ascending unless :desc. The sort is stable' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand paginate" -l where -l filter -d 'Keep only the items that pass: FIELD=VALUE, FIELD!=VALUE, FIELD>N (>=, <, <=; numbers and ISO dates), FIELD~TEXT (contains, any case), FIELD in (A, B); nested fields dotted (customer.city). Repeatable, or joined by `and`: all must hold. --filter is the same' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand paginate" -l aggregate -d 'Figures instead of a page: count, sum(FIELD), avg(FIELD), min(FIELD), max(FIELD) over the items that pass --where (no cursor, no secret needed)' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand paginate" -l group-by -d 'With --aggregate: the figures per value of this field, largest groups first' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand paginate" -l budget -d 'Shrink the page until its output fits this many tokens; meta.heldBack says how many items were left for the next page' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand paginate" -l tokenizer -d 'Token counter for --budget. Default: the config\'s `tokenizer` (auto)' -r -f -a "auto\t'claude-fast, and the exact claude count wherever the estimate lands near a limit that decides a verdict (budget, hard cap, a client limit, --max-tokens). The default'
claude\t'Claude Opus 4.7 and later (Opus 4.8, Sonnet 5): ctok 1.3.0\'s offline reconstruction of the current tokenizer, exact against ctok. A reconstruction, not Anthropic\'s tokenizer'
claude-v3\t'Claude 3 through Opus 4.6: ctok 1.3.0\'s reconstruction of that tokenizer'
claude-fast\t'An estimate of claude: character classes (GB/s), scaled by 2 KB of each response counted exactly'
claude-legacy\t'The legacy BPE of @anthropic-ai/tokenizer, made for models before Claude 3: undercounts current models; kept for comparison'
heuristic\t'Seed R001: floor(chars/4) + 20%. What the seed\'s servers budget with'
o200k\t'OpenAI o200k_base (GPT-4o, GPT-4.1, GPT-5)'
cl100k\t'OpenAI cl100k_base (GPT-4, GPT-3.5)'"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand paginate" -l format -d 'json: one page; jsonl: one page per line (the format of --all)' -r -f -a "json\t''
jsonl\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand paginate" -l secret-file -d 'File of cursor secrets, one per line (the first signs, all verify). Default: $MCPGUARD_CURSOR_SECRET' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand paginate" -l at -d 'Take this Unix time as now (reproducible cursors and expiry checks)' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand paginate" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand paginate" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand paginate" -l all -d 'Every page from here to the end, one per line (--format jsonl)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand paginate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand paginate" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand summarize" -l fields -d 'Fields to keep per record: dotted paths (id,status,price.total), a section (priceBreakdown, returned in full), or `all`. Default: the config\'s projection map for the record type, else the identifying and primary fields' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand summarize" -l budget -d 'Tokens the output may cost. Default: the config\'s tokenBudgetThreshold (4000)' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand summarize" -l tool -d 'The tool the response came from: its `endpoints:` entry in the config sets the limits and the fields' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand summarize" -l tokenizer -d 'Token counter for the budget. Default: the config\'s `tokenizer` (auto)' -r -f -a "auto\t'claude-fast, and the exact claude count wherever the estimate lands near a limit that decides a verdict (budget, hard cap, a client limit, --max-tokens). The default'
claude\t'Claude Opus 4.7 and later (Opus 4.8, Sonnet 5): ctok 1.3.0\'s offline reconstruction of the current tokenizer, exact against ctok. A reconstruction, not Anthropic\'s tokenizer'
claude-v3\t'Claude 3 through Opus 4.6: ctok 1.3.0\'s reconstruction of that tokenizer'
claude-fast\t'An estimate of claude: character classes (GB/s), scaled by 2 KB of each response counted exactly'
claude-legacy\t'The legacy BPE of @anthropic-ai/tokenizer, made for models before Claude 3: undercounts current models; kept for comparison'
heuristic\t'Seed R001: floor(chars/4) + 20%. What the seed\'s servers budget with'
o200k\t'OpenAI o200k_base (GPT-4o, GPT-4.1, GPT-5)'
cl100k\t'OpenAI cl100k_base (GPT-4, GPT-3.5)'"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand summarize" -l output-schema -d 'The tool\'s outputSchema (or its tools/list entry): structuredContent is kept, valid against it' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand summarize" -l artifact-dir -d 'Where artifacts are stored. Default: the config\'s artifactDir (.mcpguard/artifacts)' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand summarize" -l domain -d 'The artifact\'s domain (ax://DOMAIN/ID). Default: the list\'s name, else the kind of document' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand summarize" -l format -d 'Format of the --report: a table, or JSON for scripts' -r -f -a "table\t'A table for people'
json\t'Pretty JSON with a stable key order (schemas in contracts/schemas/)'"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand summarize" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand summarize" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand summarize" -l force -d 'Summarize even a response that fits'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand summarize" -l drop-empty -d 'Drop null, "", [] and {} members'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand summarize" -l table -d 'Write a list of records as `columns` and `rows` (keys once, not per record)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand summarize" -l no-artifact -d 'Do not store the full input (the output then has no artifactRef)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand summarize" -l report -d 'Print a before/after size table (bytes, tokens, each fix\'s savings) to stderr'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand summarize" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand summarize" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand decode-cursor" -l data -d 'Check the cursor against this data: has the list changed since it was issued?' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand decode-cursor" -l path -d 'JSON pointer of the list in --data (as for paginate)' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand decode-cursor" -l secret-file -d 'File of cursor secrets, one per line (the first signs, all verify). Default: $MCPGUARD_CURSOR_SECRET' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand decode-cursor" -l at -d 'Take this Unix time as now (reproducible cursors and expiry checks)' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand decode-cursor" -l format -d 'Output format' -r -f -a "table\t'A table for people'
json\t'Pretty JSON with a stable key order (schemas in contracts/schemas/)'"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand decode-cursor" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand decode-cursor" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand decode-cursor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand decode-cursor" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand chunk" -l max-tokens -d 'Tokens per chunk. Default: the config\'s chunkSize (2000)' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand chunk" -l max-lines -d 'Lines per chunk. Default: the config\'s chunkMaxLines (200)' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand chunk" -l kind -d 'What the text is (detected from the name and the first 64 KB otherwise)' -r -f -a "log\t''
markdown\t''
text\t''
jsonl\t''
csv\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand chunk" -l cursor -d 'The nextCursor of the previous chunk' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand chunk" -l lines -d 'Just these lines, 1-based and inclusive: 100:200, 100: (to the end), or 100' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand chunk" -l match -d 'Find instead of chunk: every entry (log entry with its stack trace, Markdown block, JSONL record; in plain text, the line) that matches this regular expression (the regex crate\'s syntax; (?i) for any case), whole, under `--- lines A-B`' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand chunk" -l context -d 'With --match: N lines of context before and after each match (at most 50)' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand chunk" -l format -d 'json: one chunk; jsonl: one chunk per line; text: the bare content, for a pager' -r -f -a "json\t''
jsonl\t''
text\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand chunk" -l tokenizer -d 'Token counter for --max-tokens. Default: the config\'s `tokenizer` (auto)' -r -f -a "auto\t'claude-fast, and the exact claude count wherever the estimate lands near a limit that decides a verdict (budget, hard cap, a client limit, --max-tokens). The default'
claude\t'Claude Opus 4.7 and later (Opus 4.8, Sonnet 5): ctok 1.3.0\'s offline reconstruction of the current tokenizer, exact against ctok. A reconstruction, not Anthropic\'s tokenizer'
claude-v3\t'Claude 3 through Opus 4.6: ctok 1.3.0\'s reconstruction of that tokenizer'
claude-fast\t'An estimate of claude: character classes (GB/s), scaled by 2 KB of each response counted exactly'
claude-legacy\t'The legacy BPE of @anthropic-ai/tokenizer, made for models before Claude 3: undercounts current models; kept for comparison'
heuristic\t'Seed R001: floor(chars/4) + 20%. What the seed\'s servers budget with'
o200k\t'OpenAI o200k_base (GPT-4o, GPT-4.1, GPT-5)'
cl100k\t'OpenAI cl100k_base (GPT-4, GPT-3.5)'"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand chunk" -l secret-file -d 'File of cursor secrets, one per line (the first signs, all verify). Default: $MCPGUARD_CURSOR_SECRET' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand chunk" -l at -d 'Take this Unix time as now (reproducible cursors and expiry checks)' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand chunk" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand chunk" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand chunk" -l all -d 'Every chunk from here to the end (--format jsonl: one per line; text: the bare content)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand chunk" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand chunk" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand validate-config" -l format -d 'Output format' -r -f -a "table\t'A table for people'
json\t'Pretty JSON with a stable key order (schemas in contracts/schemas/)'"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand validate-config" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand validate-config" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand validate-config" -l print-defaults -d 'Print the documented default config (YAML) and exit'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand validate-config" -l show-effective -d 'Show every effective value and where it came from (default, file:line, env)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand validate-config" -l watch -d 'Keep running: re-validate on every save, print old -> new values, keep the last good config when a save is invalid. Stop with Ctrl-C'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand validate-config" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand validate-config" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l server -d 'The server to run: \'CMD ARGS\', split as a shell would (no shell runs). Or give the command after `--`' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l mcp-config -d 'A client\'s server list (mcpServers of Claude Desktop, Claude Code\'s .mcp.json). With one --name: that server alone. Without (or with several): the gateway, one MCP server in front of all of them, tools named SERVER__TOOL' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l name -d 'A server of --mcp-config (repeatable: the gateway over those only)' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l catalog-cache -d 'Gateway: where server catalogs are kept between runs. Default: $XDG_CACHE_HOME/mcpguard/catalogs, else ~/.cache/mcpguard/catalogs' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l pins -d 'Gateway: the pins file, the SHA-256 of every tool definition seen (config `pins`: warn logs a changed one, hold keeps it back until `mcpguard pins approve`). Default: one per --mcp-config file in $XDG_CONFIG_HOME/mcpguard/pins (else ~/.config/...)' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l timeout -d 'Seconds a request may wait for the server before the client gets an error (the session lives on)' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l max-message-bytes -d 'The largest message read from either side; a larger one is answered with an error' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l metrics -d 'Write one record per request to this file (JSON lines): outcome, bytes and tokens before and after, upstream latency, proxy overhead' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l metrics-max-bytes -d 'Rotate --metrics to FILE.1 when it passes this size' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l accuracy-sample -d 'Share of results whose token estimate is checked against Claude\'s exact count (recorded as exactTokensBefore; a difference over 25% is logged). 0 turns it off' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l log-format -d 'The log on stderr: text for people, json for log collectors' -r -f -a "text\t''
json\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l artifact-dir -d 'Where full results are kept. Default: the config\'s artifactDir' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l artifact-ttl -d 'How long a full result is kept, e.g. 1h, 30m' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l artifact-cap -d 'The store\'s size cap in bytes; the oldest results go first' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l secret-file -d 'File of cursor secrets, one per line (the first signs, all verify). Default: $MCPGUARD_CURSOR_SECRET' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l at -d 'Take this Unix time as now (reproducible cursors and expiry checks)' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l listen -d 'Serve Streamable HTTP at http://ADDR/mcp to many clients, in front of --url or of the server\'s command. Needs MCPGUARD_CURSOR_SECRET (or --secret-file), shared by every instance' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l url -d 'A remote server\'s Streamable HTTP endpoint. Without --listen: the stdio bridge a stdio-only client starts (signing in with OAuth when the server asks, the login kept for the next start); with --listen: the upstream of the HTTP proxy' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l remote-entry -d 'What a client\'s remote entry was before `mcpguard install` made it this bridge (its URL member and type), for `uninstall`; nothing else reads it' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l header -d 'A header sent to --url on every request, \'Name: value\' (repeatable); ${VAR} in the value is read from the environment. Never logged' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l store -d 'Where full results go with --listen: redis://HOST:PORT/DB (shared by instances) or a directory. Default: --artifact-dir, else the config\'s artifactDir' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l metrics-listen -d 'Serve Prometheus metrics at http://ADDR/metrics and readiness at /health' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l allowed-host -d 'A Host (and Origin) the listener answers besides its own names, as HOST or HOST:PORT (repeat it for more). On a loopback address only localhost, 127.0.0.1 and [::1] are answered otherwise (DNS-rebinding protection: 421 for another Host, 403 for another Origin); on any other address nothing is checked unless this is given' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l max-request-bytes -d 'The largest request body a client may send (413 beyond)' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l max-concurrent -d 'Requests to the server at once; more wait in the queue' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l queue -d 'Requests that may wait for a place; more get 503 and a JSON-RPC error at once' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l shutdown-grace -d 'On SIGTERM, how long requests in flight may take to finish' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l oauth-client-id -d 'A client registered beforehand at the authorization server (its secret, if any, from MCPGUARD_OAUTH_CLIENT_SECRET; never a flag). Default: the client registered by this login before, else a Client ID Metadata Document, else dynamic registration' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l oauth-client-metadata-url -d 'This client\'s Client ID Metadata Document (an https URL), used where the authorization server takes one' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l oauth-callback-port -d 'The loopback port the sign-in comes back to (default: any free one). Fix it when the authorization server only takes the redirect URI it registered' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l oauth-store -d 'Where logins are kept (0600 files, one per server and authorization server). Default: $MCPGUARD_OAUTH_STORE, else ~/.config/mcpguard/oauth' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l eager -d 'Gateway: start every server at once and keep it, rather than on first use'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l status -d 'Gateway: print each server\'s state (running or not, tools, catalog cached when, last error) and exit'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l route-only -d 'The gateway\'s routing alone on stdin and stdout, without the policy: what --listen starts as its command'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l shadow -d 'Change nothing: pass every message as it is and log what would have been done'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l quiet -d 'Log warnings and errors only, not every decision'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l no-artifacts -d 'Keep no full results: shrunk results are previews without a reference'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l oauth -d 'With --listen --url: hold the remote server\'s OAuth login (made once with `mcpguard auth login --url URL`) and send it upstream in place of the client\'s; refresh it when it expires or the server answers 401. Clients connect with no OAuth of their own. The stdio bridge (--url without --listen) always signs in when the server asks'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -l oauth-client-credentials -d 'Tokens for the client itself (client_credentials, for CI) instead of a user\'s sign-in; needs --oauth-client-id and MCPGUARD_OAUTH_CLIENT_SECRET'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -s h -l help -d 'Print help'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand proxy" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand install" -l client -d 'The client whose servers to change, where it keeps them' -r -f -a "claude-code\t''
claude-desktop\t''
cursor\t''
vscode\t''
codex\t''
gemini\t''
windsurf\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand install" -l scope -d 'Which of the client\'s server lists. Default: local for claude-code (as `claude mcp add`), every one whose file exists for the others' -r -f -a "local\t''
user\t''
project\t''
all\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand install" -l name -d 'Only this server (repeatable). Default: every server in the list' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand install" -l format -d 'With --list: table or json' -r -f -a "table\t''
json\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand install" -l mcpguard -d 'The command that starts mcpguard in the config (`"npx -y mcpguard"` splits as a shell would). Default: this mcpguard\'s full path (clients such as Claude Desktop start servers without your shell\'s PATH), or `npx -y mcpguard` / `uvx mcpguard` when this mcpguard runs from npx\'s or uvx\'s cache, which may be emptied' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand install" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand install" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand install" -l claude-desktop -d 'Claude Desktop\'s config (the same as --client claude-desktop)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand install" -l dry-run -d 'Say what would change; write nothing'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand install" -l list -d 'List every client config found on this machine (for this directory\'s project too), its servers, and which are behind the proxy; change nothing'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand install" -l gateway -d 'Put the chosen servers of each list behind one gateway entry (`mcpguard proxy --mcp-config FILE`, the servers moved to FILE in ~/.config/mcpguard/gateways/), rather than each behind a proxy of its own. `uninstall` puts them back'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand install" -s h -l help -d 'Print help'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand install" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand uninstall" -l client -d 'The client whose servers to change, where it keeps them' -r -f -a "claude-code\t''
claude-desktop\t''
cursor\t''
vscode\t''
codex\t''
gemini\t''
windsurf\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand uninstall" -l scope -d 'Which of the client\'s server lists. Default: local for claude-code (as `claude mcp add`), every one whose file exists for the others' -r -f -a "local\t''
user\t''
project\t''
all\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand uninstall" -l name -d 'Only this server (repeatable). Default: every server in the list' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand uninstall" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand uninstall" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand uninstall" -l claude-desktop -d 'Claude Desktop\'s config (the same as --client claude-desktop)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand uninstall" -l dry-run -d 'Say what would change; write nothing'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand uninstall" -s h -l help -d 'Print help'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand uninstall" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and not __fish_seen_subcommand_from login status logout header help" -l oauth-client-id -d 'A client registered beforehand at the authorization server (its secret, if any, from MCPGUARD_OAUTH_CLIENT_SECRET; never a flag). Default: the client registered by this login before, else a Client ID Metadata Document, else dynamic registration' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and not __fish_seen_subcommand_from login status logout header help" -l oauth-client-metadata-url -d 'This client\'s Client ID Metadata Document (an https URL), used where the authorization server takes one' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and not __fish_seen_subcommand_from login status logout header help" -l oauth-callback-port -d 'The loopback port the sign-in comes back to (default: any free one). Fix it when the authorization server only takes the redirect URI it registered' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and not __fish_seen_subcommand_from login status logout header help" -l oauth-store -d 'Where logins are kept (0600 files, one per server and authorization server). Default: $MCPGUARD_OAUTH_STORE, else ~/.config/mcpguard/oauth' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and not __fish_seen_subcommand_from login status logout header help" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and not __fish_seen_subcommand_from login status logout header help" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and not __fish_seen_subcommand_from login status logout header help" -l oauth-client-credentials -d 'Tokens for the client itself (client_credentials, for CI) instead of a user\'s sign-in; needs --oauth-client-id and MCPGUARD_OAUTH_CLIENT_SECRET'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and not __fish_seen_subcommand_from login status logout header help" -s h -l help -d 'Print help'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and not __fish_seen_subcommand_from login status logout header help" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and not __fish_seen_subcommand_from login status logout header help" -f -a "login" -d 'Sign in to a server in the browser and keep the login (replacing one kept before)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and not __fish_seen_subcommand_from login status logout header help" -f -a "status" -d 'The logins kept: server, authorization server, client, scopes, expiry. No tokens'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and not __fish_seen_subcommand_from login status logout header help" -f -a "logout" -d 'Forget a server\'s login'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and not __fish_seen_subcommand_from login status logout header help" -f -a "header" -d 'Print a fresh Authorization header for a server (refreshed when it is about to expire), as the JSON object a headersHelper prints, or as an HTTP header line'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and not __fish_seen_subcommand_from login status logout header help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from login" -l url -d 'The server\'s Streamable HTTP endpoint' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from login" -l timeout -d 'Seconds to wait for the browser to come back' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from login" -l oauth-client-id -d 'A client registered beforehand at the authorization server (its secret, if any, from MCPGUARD_OAUTH_CLIENT_SECRET; never a flag). Default: the client registered by this login before, else a Client ID Metadata Document, else dynamic registration' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from login" -l oauth-client-metadata-url -d 'This client\'s Client ID Metadata Document (an https URL), used where the authorization server takes one' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from login" -l oauth-callback-port -d 'The loopback port the sign-in comes back to (default: any free one). Fix it when the authorization server only takes the redirect URI it registered' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from login" -l oauth-store -d 'Where logins are kept (0600 files, one per server and authorization server). Default: $MCPGUARD_OAUTH_STORE, else ~/.config/mcpguard/oauth' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from login" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from login" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from login" -l oauth-client-credentials -d 'Tokens for the client itself (client_credentials, for CI) instead of a user\'s sign-in; needs --oauth-client-id and MCPGUARD_OAUTH_CLIENT_SECRET'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from login" -s h -l help -d 'Print help'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from login" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from status" -l url -d 'Only this server\'s login (exit 1 when there is none)' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from status" -l format -r -f -a "table\t'A table for people'
json\t'Pretty JSON with a stable key order (schemas in contracts/schemas/)'"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from status" -l oauth-client-id -d 'A client registered beforehand at the authorization server (its secret, if any, from MCPGUARD_OAUTH_CLIENT_SECRET; never a flag). Default: the client registered by this login before, else a Client ID Metadata Document, else dynamic registration' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from status" -l oauth-client-metadata-url -d 'This client\'s Client ID Metadata Document (an https URL), used where the authorization server takes one' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from status" -l oauth-callback-port -d 'The loopback port the sign-in comes back to (default: any free one). Fix it when the authorization server only takes the redirect URI it registered' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from status" -l oauth-store -d 'Where logins are kept (0600 files, one per server and authorization server). Default: $MCPGUARD_OAUTH_STORE, else ~/.config/mcpguard/oauth' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from status" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from status" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from status" -l oauth-client-credentials -d 'Tokens for the client itself (client_credentials, for CI) instead of a user\'s sign-in; needs --oauth-client-id and MCPGUARD_OAUTH_CLIENT_SECRET'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from logout" -l url -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from logout" -l oauth-client-id -d 'A client registered beforehand at the authorization server (its secret, if any, from MCPGUARD_OAUTH_CLIENT_SECRET; never a flag). Default: the client registered by this login before, else a Client ID Metadata Document, else dynamic registration' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from logout" -l oauth-client-metadata-url -d 'This client\'s Client ID Metadata Document (an https URL), used where the authorization server takes one' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from logout" -l oauth-callback-port -d 'The loopback port the sign-in comes back to (default: any free one). Fix it when the authorization server only takes the redirect URI it registered' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from logout" -l oauth-store -d 'Where logins are kept (0600 files, one per server and authorization server). Default: $MCPGUARD_OAUTH_STORE, else ~/.config/mcpguard/oauth' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from logout" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from logout" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from logout" -l oauth-client-credentials -d 'Tokens for the client itself (client_credentials, for CI) instead of a user\'s sign-in; needs --oauth-client-id and MCPGUARD_OAUTH_CLIENT_SECRET'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from logout" -s h -l help -d 'Print help'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from logout" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from header" -l url -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from header" -l format -r -f -a "json\t'{"Authorization": "Bearer …"}'
line\t'Authorization: Bearer …'"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from header" -l oauth-client-id -d 'A client registered beforehand at the authorization server (its secret, if any, from MCPGUARD_OAUTH_CLIENT_SECRET; never a flag). Default: the client registered by this login before, else a Client ID Metadata Document, else dynamic registration' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from header" -l oauth-client-metadata-url -d 'This client\'s Client ID Metadata Document (an https URL), used where the authorization server takes one' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from header" -l oauth-callback-port -d 'The loopback port the sign-in comes back to (default: any free one). Fix it when the authorization server only takes the redirect URI it registered' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from header" -l oauth-store -d 'Where logins are kept (0600 files, one per server and authorization server). Default: $MCPGUARD_OAUTH_STORE, else ~/.config/mcpguard/oauth' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from header" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from header" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from header" -l oauth-client-credentials -d 'Tokens for the client itself (client_credentials, for CI) instead of a user\'s sign-in; needs --oauth-client-id and MCPGUARD_OAUTH_CLIENT_SECRET'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from header" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from header" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from help" -f -a "login" -d 'Sign in to a server in the browser and keep the login (replacing one kept before)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from help" -f -a "status" -d 'The logins kept: server, authorization server, client, scopes, expiry. No tokens'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from help" -f -a "logout" -d 'Forget a server\'s login'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from help" -f -a "header" -d 'Print a fresh Authorization header for a server (refreshed when it is about to expire), as the JSON object a headersHelper prints, or as an HTTP header line'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand auth; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and not __fish_seen_subcommand_from list approve forget help" -l mcp-config -d 'The gateway\'s server list: its pins file is the one in the user\'s config folder' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and not __fish_seen_subcommand_from list approve forget help" -l pins -d 'A pins file (the one `proxy --pins` or `audit --pins` uses)' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and not __fish_seen_subcommand_from list approve forget help" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and not __fish_seen_subcommand_from list approve forget help" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and not __fish_seen_subcommand_from list approve forget help" -s h -l help -d 'Print help'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and not __fish_seen_subcommand_from list approve forget help" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and not __fish_seen_subcommand_from list approve forget help" -f -a "list" -d 'Every pinned tool by server, and the changes waiting for approval with what changed'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and not __fish_seen_subcommand_from list approve forget help" -f -a "approve" -d 'Make the pending definitions of a server, or of one SERVER__TOOL, the pins'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and not __fish_seen_subcommand_from list approve forget help" -f -a "forget" -d 'Drop the pins of a server, or of one SERVER__TOOL: the next sight pins them afresh'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and not __fish_seen_subcommand_from list approve forget help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from list" -l format -r -f -a "table\t'A table for people'
json\t'Pretty JSON with a stable key order (schemas in contracts/schemas/)'"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from list" -l mcp-config -d 'The gateway\'s server list: its pins file is the one in the user\'s config folder' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from list" -l pins -d 'A pins file (the one `proxy --pins` or `audit --pins` uses)' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from list" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from list" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from approve" -l mcp-config -d 'The gateway\'s server list: its pins file is the one in the user\'s config folder' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from approve" -l pins -d 'A pins file (the one `proxy --pins` or `audit --pins` uses)' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from approve" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from approve" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from approve" -s h -l help -d 'Print help'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from approve" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from forget" -l mcp-config -d 'The gateway\'s server list: its pins file is the one in the user\'s config folder' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from forget" -l pins -d 'A pins file (the one `proxy --pins` or `audit --pins` uses)' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from forget" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from forget" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from forget" -s h -l help -d 'Print help'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from forget" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from help" -f -a "list" -d 'Every pinned tool by server, and the changes waiting for approval with what changed'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from help" -f -a "approve" -d 'Make the pending definitions of a server, or of one SERVER__TOOL, the pins'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from help" -f -a "forget" -d 'Drop the pins of a server, or of one SERVER__TOOL: the next sight pins them afresh'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand pins; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and not __fish_seen_subcommand_from list show gc help" -l artifact-dir -d 'The store. Default: the config\'s artifactDir' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and not __fish_seen_subcommand_from list show gc help" -l ttl -d 'How long an artifact lives, e.g. 1h, 30m' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and not __fish_seen_subcommand_from list show gc help" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and not __fish_seen_subcommand_from list show gc help" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and not __fish_seen_subcommand_from list show gc help" -s h -l help -d 'Print help'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and not __fish_seen_subcommand_from list show gc help" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and not __fish_seen_subcommand_from list show gc help" -f -a "list" -d 'Every artifact, oldest first: reference, size, age, expired or not'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and not __fish_seen_subcommand_from list show gc help" -f -a "show" -d 'Write one artifact\'s bytes to stdout, exactly as stored; or find in it (--match, --where, --aggregate)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and not __fish_seen_subcommand_from list show gc help" -f -a "gc" -d 'Remove what expired, then the oldest until the store is under --cap'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and not __fish_seen_subcommand_from list show gc help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from list" -l format -r -f -a "table\t'A table for people'
json\t'Pretty JSON with a stable key order (schemas in contracts/schemas/)'"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from list" -l artifact-dir -d 'The store. Default: the config\'s artifactDir' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from list" -l ttl -d 'How long an artifact lives, e.g. 1h, 30m' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from list" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from list" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from show" -l match -d 'The entries of its text that match this regular expression, whole (log entries with their stack traces, Markdown blocks, JSONL records, else lines); on a list of records, the records whose JSON matches' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from show" -l context -d 'With --match on text: N lines of context around each match (at most 50)' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from show" -l where -d 'Only the records that pass (as paginate --where): status=cancelled, total>100, title~refund, status in (a, b); repeatable, all must hold' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from show" -l order-by -d 'Records sorted by FIELD (FIELD:desc for largest first)' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from show" -l aggregate -d 'Figures instead of records: count, sum(FIELD), avg(FIELD), min(FIELD), max(FIELD)' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from show" -l group-by -d 'With --aggregate: the figures per value of this field' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from show" -l artifact-dir -d 'The store. Default: the config\'s artifactDir' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from show" -l ttl -d 'How long an artifact lives, e.g. 1h, 30m' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from show" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from show" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from gc" -l cap -d 'The store\'s size cap in bytes' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from gc" -l artifact-dir -d 'The store. Default: the config\'s artifactDir' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from gc" -l ttl -d 'How long an artifact lives, e.g. 1h, 30m' -r
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from gc" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from gc" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from gc" -s h -l help -d 'Print help'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from gc" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from help" -f -a "list" -d 'Every artifact, oldest first: reference, size, age, expired or not'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from help" -f -a "show" -d 'Write one artifact\'s bytes to stdout, exactly as stored; or find in it (--match, --where, --aggregate)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from help" -f -a "gc" -d 'Remove what expired, then the oldest until the store is under --cap'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand artifacts; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand generate" -l out -d 'Directory to write into (created if missing)' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand generate" -l config -d 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults' -r -F
complete -c mcpguard -n "__fish_mcpguard_using_subcommand generate" -l color -d 'When to use colour on stderr. NO_COLOR in the environment means never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mcpguard -n "__fish_mcpguard_using_subcommand generate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand generate" -s V -l version -d 'Print version'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and not __fish_seen_subcommand_from audit estimate paginate summarize decode-cursor chunk validate-config proxy install uninstall auth pins artifacts generate help" -f -a "audit" -d 'Lint captured responses or live servers (stdio, Streamable HTTP, a client\'s server list) against the contract: findings with JSON pointers and savings, per-tool statistics, client verdicts, baselines; table, JSON, SARIF, JUnit, GitHub, Markdown'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and not __fish_seen_subcommand_from audit estimate paginate summarize decode-cursor chunk validate-config proxy install uninstall auth pins artifacts generate help" -f -a "estimate" -d 'Measure documents: bytes, what the model sees, tokens, budget, client verdicts, and where the tokens go'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and not __fish_seen_subcommand_from audit estimate paginate summarize decode-cursor chunk validate-config proxy install uninstall auth pins artifacts generate help" -f -a "paginate" -d 'Cut one page of a list (a JSON array, a document holding one, an MCP tool result) with a signed nextCursor; --cursor fetches the next page'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and not __fish_seen_subcommand_from audit estimate paginate summarize decode-cursor chunk validate-config proxy install uninstall auth pins artifacts generate help" -f -a "summarize" -d 'Shrink a response so it fits the budget and the contract, with the full data stored as an artifact (ax://DOMAIN/ID): projected fields, summarized text, bloat removed'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and not __fish_seen_subcommand_from audit estimate paginate summarize decode-cursor chunk validate-config proxy install uninstall auth pins artifacts generate help" -f -a "decode-cursor" -d 'Show what a cursor carries, when it was issued, when it expires, and whether it verifies'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and not __fish_seen_subcommand_from audit estimate paginate summarize decode-cursor chunk validate-config proxy install uninstall auth pins artifacts generate help" -f -a "chunk" -d 'Read large text (logs, documents, JSONL, a tool result\'s text) in chunks cut at semantic boundaries, with a cursor for the next; --lines for a range'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and not __fish_seen_subcommand_from audit estimate paginate summarize decode-cursor chunk validate-config proxy install uninstall auth pins artifacts generate help" -f -a "validate-config" -d 'Check a config file against the schema and the range rules; print the defaults or the effective config; watch a file and re-validate on every save'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and not __fish_seen_subcommand_from audit estimate paginate summarize decode-cursor chunk validate-config proxy install uninstall auth pins artifacts generate help" -f -a "proxy" -d 'Stand between an MCP client and a server (stdio): results that fit pass byte for byte, the rest come back shrunk with the full data one tool call away'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and not __fish_seen_subcommand_from audit estimate paginate summarize decode-cursor chunk validate-config proxy install uninstall auth pins artifacts generate help" -f -a "install" -d 'Rewrite a client\'s MCP config (Claude Code in each scope, Claude Desktop, Cursor, VS Code, Codex, Gemini CLI, Windsurf, or a file) so its servers start through `mcpguard proxy`, every other byte kept; `--list` shows them all'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and not __fish_seen_subcommand_from audit estimate paginate summarize decode-cursor chunk validate-config proxy install uninstall auth pins artifacts generate help" -f -a "uninstall" -d 'Undo `install`: the servers start their own commands again'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and not __fish_seen_subcommand_from audit estimate paginate summarize decode-cursor chunk validate-config proxy install uninstall auth pins artifacts generate help" -f -a "auth" -d 'Sign in to remote servers (OAuth) and keep the login for the proxy and the audit: login, status, logout, and a fresh Authorization header for a client\'s headersHelper'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and not __fish_seen_subcommand_from audit estimate paginate summarize decode-cursor chunk validate-config proxy install uninstall auth pins artifacts generate help" -f -a "pins" -d 'The tool definitions the gateway has pinned: list them with the changes waiting for a person, approve a change (a held tool is listed again), forget pins'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and not __fish_seen_subcommand_from audit estimate paginate summarize decode-cursor chunk validate-config proxy install uninstall auth pins artifacts generate help" -f -a "artifacts" -d 'List, show and clear out the full results shrunk responses point at (ax://DOMAIN/ID)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and not __fish_seen_subcommand_from audit estimate paginate summarize decode-cursor chunk validate-config proxy install uninstall auth pins artifacts generate help" -f -a "generate" -d 'Write shell completions and the man page (for packagers; used to refresh completions/)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and not __fish_seen_subcommand_from audit estimate paginate summarize decode-cursor chunk validate-config proxy install uninstall auth pins artifacts generate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and __fish_seen_subcommand_from auth" -f -a "login" -d 'Sign in to a server in the browser and keep the login (replacing one kept before)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and __fish_seen_subcommand_from auth" -f -a "status" -d 'The logins kept: server, authorization server, client, scopes, expiry. No tokens'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and __fish_seen_subcommand_from auth" -f -a "logout" -d 'Forget a server\'s login'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and __fish_seen_subcommand_from auth" -f -a "header" -d 'Print a fresh Authorization header for a server (refreshed when it is about to expire), as the JSON object a headersHelper prints, or as an HTTP header line'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and __fish_seen_subcommand_from pins" -f -a "list" -d 'Every pinned tool by server, and the changes waiting for approval with what changed'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and __fish_seen_subcommand_from pins" -f -a "approve" -d 'Make the pending definitions of a server, or of one SERVER__TOOL, the pins'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and __fish_seen_subcommand_from pins" -f -a "forget" -d 'Drop the pins of a server, or of one SERVER__TOOL: the next sight pins them afresh'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and __fish_seen_subcommand_from artifacts" -f -a "list" -d 'Every artifact, oldest first: reference, size, age, expired or not'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and __fish_seen_subcommand_from artifacts" -f -a "show" -d 'Write one artifact\'s bytes to stdout, exactly as stored; or find in it (--match, --where, --aggregate)'
complete -c mcpguard -n "__fish_mcpguard_using_subcommand help; and __fish_seen_subcommand_from artifacts" -f -a "gc" -d 'Remove what expired, then the oldest until the store is under --cap'
