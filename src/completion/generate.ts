// Generates shell completion scripts from the commander tree, so that they can never describe a
// command that does not exist. The checked-in files in completions/ are this output.
import type { Command, Option } from 'commander';
import { KEEP_RULES } from '../merge/plan-groups.js';
import { TOPICS } from '../docs/topics.js';

export interface CompletionNode {
  path: string[];
  commands: string[];
  flags: string[];
  /** Flags whose values are a known list. */
  values: Record<string, string[]>;
  /** Flags whose value is a file name (`<path>`, `<file>`). */
  files: string[];
  /** The node's positional argument is a profile name (`profile use/show/remove <name>`). */
  profileArgument: boolean;
}

/** The project ids the current settings' key can see, for completing --project. */
const PROJECT_IDS = 'hogctl projects list --jq ".[].id" --timeout 5 --no-input';
const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv'];
/** Values of flags that a verb checks itself (no commander choices), by flag. */
const CHECKED_VALUES: Record<string, readonly string[]> = { '--keep': KEEP_RULES };

function walk(command: Command, path: string[], inherited: readonly Option[], out: CompletionNode[]): void {
  const options = [...inherited, ...command.options];
  const flags = new Set<string>(['--help']);
  const values: Record<string, string[]> = { '--output': OUTPUT_FORMATS, '-o': OUTPUT_FORMATS };
  const files: string[] = [];
  for (const o of options) {
    for (const f of [o.long, o.short]) if (f) flags.add(f);
    if (o.argChoices && o.long) values[o.long] = o.argChoices;
    if (o.long && Object.hasOwn(CHECKED_VALUES, o.long)) values[o.long] = [...CHECKED_VALUES[o.long]];
    if (o.long && /<(path|file)\b/.test(o.flags)) files.push(o.long);
  }
  const visible = command.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
  // `hogctl help` takes a command or a topic.
  const args =
    path.length === 1 && path[0] === 'help'
      ? [...command.parent!.commands.filter((c) => c !== command).map((c) => c.name()), ...Object.keys(TOPICS)]
      : command.registeredArguments.flatMap((a) => a.argChoices ?? []);
  const profileArgument = path[0] === 'profile' && command.registeredArguments[0]?.name() === 'name' && command.name() !== 'add';
  out.push({
    path,
    commands: [...visible.map((c) => c.name()), ...args],
    flags: [...flags].sort(),
    values,
    files: files.sort(),
    profileArgument,
  });
  for (const sub of visible) walk(sub, [...path, sub.name()], path.length === 0 ? command.options : inherited, out);
}

export function completionTree(program: Command): CompletionNode[] {
  const nodes: CompletionNode[] = [];
  walk(program, [], [], nodes);
  return nodes;
}

// Profile names are read straight from the config file, so completing them starts no node process.
// Project ids are the server's: asked for (a few seconds at most) only after --project.
const PROFILES_SH = `_hogctl_profiles() {
  local dir="\${HOGCTL_CONFIG_DIR:-\${XDG_CONFIG_HOME:-$HOME/.config}/hogctl}"
  [ -f "$dir/config.json" ] && sed -n 's/^[[:space:]]\\{2\\}"\\([^"]*\\)": {$/\\1/p' "$dir/config.json"
}
_hogctl_projects() {
  # With the --profile given on the line, as the command will run with it.
  local i profile_=()
  for (( i=1; i<\${#COMP_WORDS[@]}-1; i++ )); do
    [ "\${COMP_WORDS[i]}" = --profile ] && profile_=(--profile "\${COMP_WORDS[i+1]}")
  done
  ${PROJECT_IDS} "\${profile_[@]}" 2>/dev/null
}`;

/** The bash `case "$prev"` lines of a node's flags with values or file names, but those in `shared`. */
function valueCases(n: CompletionNode, shared: Record<string, string[]>): string[] {
  const values = Object.entries(n.values).filter(([flag, vals]) => shared[flag]?.join(' ') !== vals.join(' '));
  return [
    ...values.map(([flag, vals]) => `    ${flag}) COMPREPLY=( $(compgen -W "${vals.join(' ')}" -- "$cur") ); return ;;`),
    ...(n.files.length
      ? [`    ${n.files.join('|')}) compopt -o filenames 2>/dev/null; COMPREPLY=( $(compgen -f -- "$cur") ); return ;;`]
      : []),
  ];
}

/** A node's flags but the root's, which every command takes. */
function localFlags(n: CompletionNode, root: CompletionNode): string[] {
  return n.flags.filter((flag) => !root.flags.includes(flag));
}

export function bashScript(program: Command): string {
  const nodes = completionTree(program);
  // The root's flags are every command's: their values are completed once, before the cases.
  const globalValues = valueCases(nodes[0], {});
  const cases = nodes
    .map((n) => {
      const local = valueCases(n, nodes[0].values);
      return [
        `    "${n.path.join(' ')}")`,
        ...(local.length ? ['      case "$prev" in', ...local.map((c) => `    ${c}`), '      esac'] : []),
        `      cmds_="${n.commands.join(' ')}${n.profileArgument ? ' $(_hogctl_profiles)' : ''}"; flags_="$globals_${localFlags(n, nodes[0])
          .map((f) => ` ${f}`)
          .join('')}" ;;`,
      ].join('\n');
    })
    .join('\n');
  return `# bash completion for hogctl; generated by \`hogctl completion bash\`, do not edit.
# Install: mkdir -p ~/.local/share/bash-completion/completions && hogctl completion bash > ~/.local/share/bash-completion/completions/hogctl
${PROFILES_SH}
_hogctl_children() {
  case "$1" in
${nodes.map((n) => `    "${n.path.join(' ')}") echo "${n.commands.join(' ')}" ;;`).join('\n')}
  esac
}
_hogctl() {
  local cur prev path_ cmds_ flags_ globals_ i w
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  path_=""
  for (( i=1; i<COMP_CWORD; i++ )); do
    w="\${COMP_WORDS[i]}"
    case " $(_hogctl_children "$path_") " in *" $w "*) path_="\${path_:+$path_ }$w" ;; esac
  done
  globals_="${nodes[0].flags.join(' ')}"
  case "$path_" in
${cases}
    *) cmds_=""; flags_="" ;;
  esac
  # The global flags' values come after the command's own cases above: a command's own values
  # for a global flag win.
  case "$prev" in
${globalValues.join('\n')}
    --profile) COMPREPLY=( $(compgen -W "$(_hogctl_profiles)" -- "$cur") ); return ;;
    --project) COMPREPLY=( $(compgen -W "$(_hogctl_projects)" -- "$cur") ); return ;;
  esac
  # Flags only once a dash is typed, as gh and kubectl do: \`hogctl persons <Tab><Tab>\` lists the
  # verbs, not fifteen global flags among them.
  case "$cur" in
    -*) COMPREPLY=( $(compgen -W "$flags_" -- "$cur") ) ;;
    *) COMPREPLY=( $(compgen -W "$cmds_" -- "$cur") ) ;;
  esac
}
complete -F _hogctl hogctl
`;
}

export function zshScript(program: Command): string {
  const body = bashScript(program)
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .join('\n');
  return `#compdef hogctl
# zsh completion for hogctl; generated by \`hogctl completion zsh\`, do not edit.
# Install: mkdir -p ~/.zfunc && hogctl completion zsh > ~/.zfunc/_hogctl, add fpath=(~/.zfunc $fpath) before compinit in ~/.zshrc, start a new shell.
autoload -U +X bashcompinit && bashcompinit
${body}`;
}

/** How fish completes the value of flag `f` of node `n`. */
function fishArgument(n: CompletionNode, f: string): string {
  const vals = n.values[f];
  if (vals) return ` -x -a '${vals.join(' ')}'`;
  if (f === '--profile') return " -x -a '(__hogctl_profiles)'";
  if (f === '--project') return " -x -a '(__hogctl_projects)'";
  return n.files.includes(f) ? ' -r -F' : '';
}

export function fishScript(program: Command): string {
  const lines = [
    '# fish completion for hogctl; generated by `hogctl completion fish`, do not edit.',
    '# Install: mkdir -p ~/.config/fish/completions && hogctl completion fish > ~/.config/fish/completions/hogctl.fish',
    'function __hogctl_path',
    '    set -l tokens (commandline -opc)',
    '    set -e tokens[1]',
    '    string join " " (string match -v -- "-*" $tokens)',
    'end',
    'function __hogctl_profiles',
    '    set -l dir $HOGCTL_CONFIG_DIR',
    '    if test -z "$dir"',
    '        set -l base $XDG_CONFIG_HOME',
    '        test -z "$base"; and set base $HOME/.config',
    '        set dir $base/hogctl',
    '    end',
    `    test -f $dir/config.json; and sed -n 's/^[[:space:]]\\{2\\}"\\([^"]*\\)": {$/\\1/p' $dir/config.json`,
    'end',
    'function __hogctl_projects',
    '    # With the --profile given on the line, as the command will run with it.',
    '    set -l tokens (commandline -opc)',
    '    set -l at (contains -i -- --profile $tokens)',
    '    set -l profile',
    '    test -n "$at"; and set profile --profile $tokens[(math $at + 1)]',
    `    ${PROJECT_IDS} $profile 2>/dev/null`,
    'end',
    'complete -c hogctl -f',
  ];
  const nodes = completionTree(program);
  // The root's flags are every command's: one line each, with no condition on the path.
  for (const n of nodes) {
    const cond = `-n 'test "(__hogctl_path)" = "${n.path.join(' ')}"'`;
    // One line for the node's commands: fish splits -a's list on spaces.
    if (n.commands.length) lines.push(`complete -c hogctl ${cond} -a '${n.commands.join(' ')}'`);
    if (n.profileArgument) lines.push(`complete -c hogctl ${cond} -a '(__hogctl_profiles)'`);
    // A command's own values of a global flag get a line of their own, for that command.
    const own = Object.keys(n.values).filter((f) => n.values[f].join(' ') !== (nodes[0].values[f] ?? []).join(' '));
    const flags = n === nodes[0] ? n.flags : [...new Set([...localFlags(n, nodes[0]), ...own])];
    for (const f of flags.filter((flag) => flag.startsWith('--'))) {
      lines.push(`complete -c hogctl ${n === nodes[0] ? '' : `${cond} `}-l ${f.slice(2)}${fishArgument(n, f)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
