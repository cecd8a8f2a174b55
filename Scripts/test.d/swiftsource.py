"""The shape of the Swift sources, as Scripts/test.d/architecture checks it: sizes, force unwraps, the commands' reach
and the folders' imports. A small lexer, not a compiler: it blanks comments and string literals (interpolations
stay code), then finds declarations and braces in what is left.

Each check returns problems as sentences ("path:line: what, and the limit"), none when the sources keep the rule.
"""
import os
import re

# The limits (Docs/ARCHITECTURE.md, "Sizes"). Every size is lines as an editor shows them (and `wc -l` counts them),
# comments and blank lines included.
TARGET_LINES = 4_000
FILE_LINES = 400
COMMAND_FILE_LINES = 200
FUNCTION_LINES = 80

# A command file (the CLI's Commands folder) parses options and prints an answer: it neither imports a store's module
# nor opens or reads a store.
STORE_MODULES = {"BridgetPersistence", "BridgetSQLite", "BridgetPostgres", "GRDB", "PostgresNIO"}
STORE_READ = re.compile(r"\b(?:openStore\w*|makeStore|store\s*\.\s*[a-z]\w*\s*\()")
IMPORT = re.compile(r"^(?:@\w+ )*(?:public |package |internal |private |fileprivate )?import "
                    r"(?:struct |class |enum |protocol |typealias |func |var |let )?([A-Za-z_][A-Za-z0-9_]*)", re.M)


def blank(source):
    """`source` with comments and the text of string literals replaced by spaces, line breaks kept; the code of an
    interpolation (`\\(...)`) is kept."""
    out, i, n = [], 0, len(source)
    modes = ["code"]      # "code", "interpolation", or (quote, hashes) inside a literal
    depths = []           # parentheses open in each interpolation
    while i < n:
        mode = modes[-1]
        if mode in ("code", "interpolation"):
            if source.startswith("//", i):
                end = source.find("\n", i)
                end = n if end < 0 else end
                out.append(" " * (end - i))
                i = end
                continue
            if source.startswith("/*", i):
                depth, j = 0, i
                while j < n:
                    if source.startswith("/*", j):
                        depth, j = depth + 1, j + 2
                    elif source.startswith("*/", j):
                        depth, j = depth - 1, j + 2
                        if depth == 0:
                            break
                    else:
                        j += 1
                out.append(re.sub(r"[^\n]", " ", source[i:j]))
                i = j
                continue
            opening = re.match(r'(#*)("""|")', source[i:i + 16]) if source[i] in '#"' else None
            if opening:
                out.append(opening.group(0))
                i += len(opening.group(0))
                modes.append((opening.group(2), opening.group(1)))
                continue
            if mode == "interpolation":
                if source[i] == "(":
                    depths[-1] += 1
                elif source[i] == ")":
                    if depths[-1] == 0:
                        modes.pop()
                        depths.pop()
                        out.append(")")
                        i += 1
                        continue
                    depths[-1] -= 1
            out.append(source[i])
            i += 1
            continue
        quote, hashes = mode
        if source.startswith(quote + hashes, i):
            modes.pop()
            out.append(quote + hashes)
            i += len(quote + hashes)
            continue
        escape = "\\" + hashes
        if source.startswith(escape + "(", i):
            out.append(" " * (len(escape) + 1))
            i += len(escape) + 1
            modes.append("interpolation")
            depths.append(0)
            continue
        if source.startswith(escape, i) and i + len(escape) < n:
            out.append(re.sub(r"[^\n]", " ", source[i:i + len(escape) + 1]))
            i += len(escape) + 1
            continue
        out.append("\n" if source[i] == "\n" else " ")
        i += 1
    return "".join(out)


FUNCTION = re.compile(r"\b(?:func\s+([^\s(<]+)|(init)[?!]?\s*[(<]|(subscript)\s*[(<]|(deinit)\b)")
NEXT_DECLARATION = re.compile(r"\s*(?:@\w+|(?:(?:package|public|internal|private|fileprivate|static|final|"
                              r"override|mutating|nonisolated)\s+)*(?:func|var|let|case|init|subscript|struct|enum|"
                              r"class|protocol|extension|typealias)\b)")


def functions(source):
    """Every function, initializer, subscript and deinitializer with a body: (name, first line, last line)."""
    code = blank(source)
    found = []
    for match in FUNCTION.finditer(code):
        if match.start() > 0 and code[match.start() - 1] == ".":
            continue  # `.init(...)`, `self.init(...)`: a call
        name = next(group for group in match.groups() if group)
        j = match.end() - 1 if code[match.end() - 1] in "(<" else match.end()
        depth, body = 0, None
        while j < len(code):
            ch = code[j]
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            elif depth == 0 and ch == "{":
                body = j
                break
            elif depth == 0 and ch == "}":
                break  # a requirement of a protocol: no body
            elif depth == 0 and ch == "\n" and NEXT_DECLARATION.match(code, j + 1):
                break
            j += 1
        if body is None:
            continue
        depth, k = 0, body
        while k < len(code):
            if code[k] == "{":
                depth += 1
            elif code[k] == "}":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        found.append((name, code.count("\n", 0, match.start()) + 1, code.count("\n", 0, k) + 1))
    return found


FORCE = re.compile(r"(?<=[A-Za-z0-9_)\]])!(?![=])|\btry!|\bas!")


def unexplained_force_unwraps(path, source):
    """The lines with a force unwrap (`x!`, `try!`, `as!`) and no comment beside or right above them."""
    lines, code = source.split("\n"), blank(source).split("\n")
    found = []
    for index, line in enumerate(code):
        if not FORCE.search(line):
            continue
        beside = "//" in lines[index] and "//" not in line
        above = index > 0 and lines[index - 1].strip().startswith("//")
        if not (beside or above):
            found.append(f"{path}:{index + 1}: a force unwrap with no comment saying why it cannot fail: "
                         f"{lines[index].strip()[:100]}")
    return found


DECLARATION = re.compile(r"^(?:@\S+\s+)*(?:(?:package|public|internal|final|nonisolated|indirect)\s+)*"
                         r"(?:struct|enum|class|protocol|actor|typealias|func|let|var)\s+([A-Za-z_]\w*)", re.M)


def folder_cycles(target_dir, sources):
    """Pairs of folders of one target that use each other's top-level declarations: (a, b, what a uses of b, what b
    uses of a). `sources` maps each path under `target_dir` to its blanked code."""
    def folder(path):
        parts = os.path.relpath(path, target_dir).split(os.sep)
        return parts[0] if len(parts) > 1 else ""
    declared = {}
    for path, code in sources.items():
        for match in DECLARATION.finditer(code):
            declared.setdefault(match.group(1), set()).add(folder(path))
    uses = {}
    for path, code in sources.items():
        here = folder(path)
        for name in set(re.findall(r"\b[A-Z]\w*", code)):
            for there in declared.get(name, ()):
                if there != here and here and there:
                    uses.setdefault((here, there), set()).add(name)
    return [(a, b, sorted(uses[(a, b)]), sorted(uses[(b, a)]))
            for (a, b) in sorted(uses) if a < b and (b, a) in uses]


def check_target(name, target_dir, root, command_folder=None):
    """Every rule over one source target's files; `command_folder` is the CLI's Commands folder (relative to root)."""
    problems, sources, total = [], {}, 0
    for directory, subfolders, files in os.walk(target_dir):
        subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
        for file in sorted(files):
            if not file.endswith(".swift"):
                continue
            path = os.path.join(directory, file)
            shown = os.path.relpath(path, root)
            with open(path, encoding="utf-8", errors="replace") as handle:
                source = handle.read()
            lines = source.count("\n") + (0 if source.endswith("\n") or not source else 1)
            sources[path] = blank(source)
            total += lines
            if lines > FILE_LINES:
                problems.append(f"{shown}: {lines} lines, over the {FILE_LINES} a source file may have")
            is_command = command_folder and os.path.dirname(shown) == command_folder
            if is_command and lines > COMMAND_FILE_LINES:
                problems.append(f"{shown}: {lines} lines, over the {COMMAND_FILE_LINES} a command file may have")
            for function, first, last in functions(source):
                if last - first + 1 > FUNCTION_LINES:
                    problems.append(f"{shown}:{first}: {function} is {last - first + 1} lines, over the "
                                    f"{FUNCTION_LINES} a function may have")
            problems += unexplained_force_unwraps(shown, source)
            if is_command:
                for module in IMPORT.findall(source):
                    if module in STORE_MODULES:
                        problems.append(f"{shown}: a command imports {module}: it asks an answer of the core instead")
                for number, line in enumerate(sources[path].split("\n"), 1):
                    if STORE_READ.search(line):
                        problems.append(f"{shown}:{number}: a command opens or reads a store "
                                        f"({line.strip()[:80]}): it asks an answer of the core instead")
    if total > TARGET_LINES:
        problems.append(f"the target {name} ({os.path.relpath(target_dir, root)}) has {total} lines, over the "
                        f"{TARGET_LINES} a target may have")
    for a, b, a_uses, b_uses in folder_cycles(target_dir, sources):
        problems.append(f"the target {name}: its folders {a} and {b} use each other ({a} uses {', '.join(a_uses[:4])};"
                        f" {b} uses {', '.join(b_uses[:4])})")
    return problems, total


def self_check():
    """The lexer and the rules on small sources whose answers are known: problems, none when it reads them right (so a
    lexer that found nothing cannot pass the tree)."""
    problems = []
    body = "\n".join(f"    let x{i} = \"{{ }} \\(f(\"}}\"))\" // {{" for i in range(79))
    long_one = f"struct A {{\n    func long() {{\n{body}\n    }}\n    func short() -> Int {{ 1 }}\n}}\n"
    found = {name: last - first + 1 for name, first, last in functions(long_one)}
    if found != {"long": 81, "short": 1}:
        problems.append(f"the lexer measured {found} where a function of 81 lines and one of 1 are")
    protocol = "protocol P {\n    func a()\n    init(b: Int)\n}\nextension P { init?(c: Int) { nil } }\n"
    if [name for name, _, _ in functions(protocol)] != ["init"]:
        problems.append(f"the lexer found {functions(protocol)} in a protocol with one initializer defined")
    forced = "let a = b!\n// `c!`: set above.\nlet d = c!\nlet e = f! // never nil here\nlet g = \"h!\"\nlet i = j != k\n"
    if [line.split(":")[1] for line in unexplained_force_unwraps("x.swift", forced)] != ["1"]:
        problems.append("the force unwraps without a comment in a known source were not exactly line 1")
    reads = "let s = try await context.openStoreForReading()\nlet n = try await store.eventCount(bridgeID: nil)\n" \
            "let d = context.assembly.storeDescription\n"
    if [number for number, line in enumerate(blank(reads).split("\n"), 1) if STORE_READ.search(line)] != [1, 2]:
        problems.append("the store reads of a known source were not exactly lines 1 and 2")
    return problems
