
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
            cand estimate 'Measure documents: bytes, what the model sees, tokens, budget, client verdicts, and where the tokens go'
            cand validate-config 'Check a config file against the schema and the range rules; print the defaults or the effective config; watch a file and re-validate on every save'
            cand generate 'Write shell completions and the man page (for packagers; used to refresh completions/)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mcpguard;estimate'= {
            cand --tokenizer 'Token estimator. Default: the config''s `tokenizer` (heuristic)'
            cand --top 'How many JSON paths to list under "where the tokens go" (0 for none)'
            cand --max-tokens 'Exit 1 when any document is over N tokens: a one-line CI gate'
            cand --client 'Clients to judge each document against (comma-separated). Known: claude-code, copilot-cli, opencode, and any profile in the config''s `clients`'
            cand --format 'Output format'
            cand --config 'Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json in the working directory, else built-in defaults'
            cand --color 'When to use colour on stderr. NO_COLOR in the environment means never'
            cand --compare 'Count with every estimator, side by side, with the heuristic''s error against claude'
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
            cand estimate 'Measure documents: bytes, what the model sees, tokens, budget, client verdicts, and where the tokens go'
            cand validate-config 'Check a config file against the schema and the range rules; print the defaults or the effective config; watch a file and re-validate on every save'
            cand generate 'Write shell completions and the man page (for packagers; used to refresh completions/)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mcpguard;help;estimate'= {
        }
        &'mcpguard;help;validate-config'= {
        }
        &'mcpguard;help;generate'= {
        }
        &'mcpguard;help;help'= {
        }
    ]
    $completions[$command]
}
