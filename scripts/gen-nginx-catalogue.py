#!/usr/bin/env python3
"""Generate src/analysis/catalogue/data.rs, the nginx directive catalogue, from the C sources.

Reads nginx's own `ngx_command_t` tables (and those of the third-party modules Debian and
OpenResty ship) from the bare git mirrors under /work/.mirror (or $LEMPLINT_MIRRORS), plus
nginx.org's documentation XML for the version each directive appeared in. Nothing here is
typed by hand: every fact comes from a source file, and how each merge policy was found is
stored beside it. What the script cannot classify it says is `unknown`.

  scripts/gen-nginx-catalogue.py           rewrite the data file
  scripts/gen-nginx-catalogue.py --check   exit 1 when the checked-in file is out of date

Deterministic: same mirrors, same output (sorted, no timestamps).
"""

import io
import os
import re
import subprocess
import sys
import tarfile

MIRRORS = os.environ.get("LEMPLINT_MIRRORS", "/work/.mirror")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "analysis",
                   "catalogue", "data.rs")

# nginx itself first: it is the reference for every name it defines.
NGINX = "nginx+nginx"
THIRD_PARTY = [
    "nginx+njs",
    "openresty+lua-nginx-module",
    "openresty+stream-lua-nginx-module",
    "openresty+headers-more-nginx-module",
    "openresty+echo-nginx-module",
    "openresty+memc-nginx-module",
    "openresty+set-misc-nginx-module",
    "openresty+srcache-nginx-module",
    "vision5+ngx_devel_kit",
    "leev+ngx_http_geoip2_module",
    "google+ngx_brotli",
    "arut+nginx-dav-ext-module",
    "arut+nginx-rtmp-module",
    "aperezdc+ngx-fancyindex",
    "masterzen+nginx-upload-progress-module",
    "gnosek+nginx-upstream-fair",
    "nginx-modules+ngx_cache_purge",
    "owasp-modsecurity+ModSecurity-nginx",
    "slact+nchan",
    "sto+ngx_http_auth_pam_module",
    "yaoweibin+ngx_http_substitutions_filter_module",
]
DOCS = "nginx+nginx.org"
# Older nginx releases, read only for directives HEAD no longer has (`ssl`, `spdy_*`, …): a
# configuration written for them is not full of typos. The last release of each minor line.
OLD_RELEASE_MIN = (1, 10)

CONTEXT_FLAGS = {
    "NGX_MAIN_CONF": "MAIN",
    "NGX_DIRECT_CONF": "MAIN",
    "NGX_EVENT_CONF": "EVENTS",
    "NGX_HTTP_MAIN_CONF": "HTTP",
    "NGX_HTTP_SRV_CONF": "HTTP_SRV",
    "NGX_HTTP_LOC_CONF": "HTTP_LOC",
    "NGX_HTTP_UPS_CONF": "HTTP_UPS",
    "NGX_HTTP_SIF_CONF": "HTTP_SIF",
    "NGX_HTTP_LIF_CONF": "HTTP_LIF",
    "NGX_HTTP_LMT_CONF": "HTTP_LMT",
    "NGX_STREAM_MAIN_CONF": "STREAM",
    "NGX_STREAM_SRV_CONF": "STREAM_SRV",
    "NGX_STREAM_UPS_CONF": "STREAM_UPS",
    "NGX_MAIL_MAIN_CONF": "MAIL",
    "NGX_MAIL_SRV_CONF": "MAIL_SRV",
    "NGX_ANY_CONF": "ANY",
}
CONTEXT_ORDER = ["MAIN", "EVENTS", "HTTP", "HTTP_SRV", "HTTP_LOC", "HTTP_UPS", "HTTP_SIF",
                 "HTTP_LIF", "HTTP_LMT", "STREAM", "STREAM_SRV", "STREAM_UPS", "MAIL",
                 "MAIL_SRV", "OTHER", "ANY"]
# ngx_conf_file.h: NGX_CONF_TAKEn is one bit per argument count; the combinations are ors.
ARITY_FLAGS = {
    "NGX_CONF_NOARGS": ["A0"], "NGX_CONF_TAKE1": ["A1"], "NGX_CONF_TAKE2": ["A2"],
    "NGX_CONF_TAKE3": ["A3"], "NGX_CONF_TAKE4": ["A4"], "NGX_CONF_TAKE5": ["A5"],
    "NGX_CONF_TAKE6": ["A6"], "NGX_CONF_TAKE7": ["A7"],
    "NGX_CONF_TAKE12": ["A1", "A2"], "NGX_CONF_TAKE13": ["A1", "A3"],
    "NGX_CONF_TAKE23": ["A2", "A3"], "NGX_CONF_TAKE123": ["A1", "A2", "A3"],
    "NGX_CONF_TAKE1234": ["A1", "A2", "A3", "A4"],
    "NGX_CONF_1MORE": ["MORE1"], "NGX_CONF_2MORE": ["MORE2"], "NGX_CONF_FLAG": ["FLAG"],
    "NGX_CONF_ANY": ["ANYARGS"],
}
ARITY_ORDER = ["A0", "A1", "A2", "A3", "A4", "A5", "A6", "A7", "MORE1", "MORE2", "FLAG",
               "ANYARGS"]
# Flags that say nothing about where or how many (the conf pointer, not the context).
IGNORED_FLAGS = {"NGX_CONF_MULTI", "NGX_CONF_ARGS_NUMBER", "0"}


def git(repo, *args):
    return subprocess.run(["git", "--git-dir", repo] + list(args), check=True,
                          capture_output=True).stdout


def repo_dir(name):
    for cand in (os.path.join(MIRRORS, name, "repo"), os.path.join(MIRRORS, name)):
        if os.path.isdir(os.path.join(cand, "objects")):
            return cand
    return None


def sources(repo, rev, suffixes=(".c", ".h")):
    """{path: text} of the C files of `repo` at `rev`, from one `git archive`."""
    data = git(repo, "archive", "--format=tar", rev)
    out = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for m in tar.getmembers():
            if m.isfile() and m.name.endswith(suffixes):
                out[m.name] = tar.extractfile(m).read().decode("utf-8", "replace")
    return out


COMMENT = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def strip_comments(text):
    """Comments out, strings kept; newlines kept so nothing shifts between lines."""
    def repl(m):
        s = m.group(0)
        if s.startswith("/"):
            return re.sub(r"[^\n]", " ", s)
        return s
    return COMMENT.sub(repl, text)


def strip_preprocessor(text):
    return re.sub(r"^[ \t]*#[^\n]*(?:\\\n[^\n]*)*", "", text, flags=re.M)


def matching(text, start, open_ch="{", close_ch="}"):
    """Index just past the bracket closing the one at `start`."""
    depth = 0
    i = start
    n = len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j
        elif c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def split_top(s):
    """Split on commas outside brackets."""
    parts, depth, cur = [], 0, []
    for c in s:
        if c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
        if c == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    tail = "".join(cur).strip()
    if tail:
        parts.append(tail)
    return parts


CMD_ARRAY = re.compile(r"ngx_command_t\s+(\w+)\s*\[\s*\]\s*=\s*\{")
MODULE_DEF = re.compile(r"ngx_module_t\s+(\w+)\s*=\s*\{")
FUNC_DEF = re.compile(r"^(?:static\s+)?[\w \t\*]*?\b(\w+)\s*\(([^;{)]*)\)\s*\{", re.M)


def functions(text):
    """{name: body} of the function definitions in one file."""
    out = {}
    for m in FUNC_DEF.finditer(text):
        name = m.group(1)
        if name in ("if", "while", "for", "switch", "return", "sizeof"):
            continue
        brace = m.end() - 1
        out.setdefault(name, (m.group(2), text[brace:matching(text, brace)]))
    return out


def parse_commands(text):
    """[(array name, [entry fields])] of one preprocessed file."""
    out = []
    for m in CMD_ARRAY.finditer(text):
        start = m.end() - 1
        body = text[start + 1:matching(text, start) - 1]
        entries = []
        i = 0
        while True:
            j = body.find("{", i)
            if j < 0:
                break
            k = matching(body, j)
            fields = split_top(body[j + 1:k - 1])
            i = k
            if fields and fields[0].startswith("ngx_string("):
                entries.append(fields)
        out.append((m.group(1), entries))
    return out


def module_of_arrays(text):
    """{command array name: module name} from the `ngx_module_t` definitions."""
    out = {}
    for m in MODULE_DEF.finditer(text):
        start = m.end() - 1
        fields = split_top(text[start + 1:matching(text, start) - 1])
        # NGX_MODULE_V1 is one macro argument; the commands are the third field.
        if len(fields) >= 3:
            out[fields[2].strip()] = m.group(1)
    return out


def flags(expr):
    return [f for f in re.split(r"[|\s()]+", expr) if f]


class Repo:
    def __init__(self, name, rev="HEAD", keep=None):
        """`keep(path, text)`: which files to read (default: all)."""
        self.name = name
        self.dir = repo_dir(name)
        self.rev = rev
        self.commit = git(self.dir, "rev-parse", rev + "^{commit}").decode().strip()
        files = sources(self.dir, self.commit)
        if keep:
            files = {p: t for p, t in files.items() if keep(p, t)}
        self.files = {p: strip_comments(t) for p, t in sorted(files.items())}
        self.raw = files
        self.funcs = {}
        for p, t in self.files.items():
            for fname, (params, body) in functions(t).items():
                self.funcs.setdefault(fname, (p, params, body))
        self.modules = {}
        for p, t in self.files.items():
            for arr, mod in module_of_arrays(strip_preprocessor(t)).items():
                self.modules.setdefault((p, arr), mod)
                self.modules.setdefault(arr, mod)
        self.merges = self.merge_functions()

    def raw_file(self, path):
        """A file outside the C sources (auto/options), at this revision."""
        return git(self.dir, "show", "%s:%s" % (self.commit, path)).decode("utf-8", "replace")

    def merge_functions(self):
        """{conf struct: [(function, body)]}: functions `(cf, parent, child)` that cast
        parent and child to the struct: the module's merge_*_conf callbacks."""
        out = {}
        for fname, (_, params, body) in sorted(self.funcs.items()):
            if not re.search(r"\bparent\b", params) or not re.search(r"\bchild\b", params):
                continue
            for m in re.finditer(r"(\w+)\s*\*\s*\w+\s*=\s*(?:\(\s*\w+\s*\*\s*\)\s*)?child\b", body):
                out.setdefault(m.group(1), []).append((fname, body))
        return out

    def helpers(self, body, seen):
        """Bodies of this repo's functions a merge body calls with both levels' confs."""
        out = []
        for m in re.finditer(r"\b(\w+)\s*\(([^;]*?)\)\s*[;!=<>&|)]", body):
            fname, args = m.group(1), m.group(2)
            if fname in seen or fname not in self.funcs:
                continue
            if re.search(r"\b(conf|child)\b", args) and re.search(r"\b(prev|parent)\b", args):
                seen.add(fname)
                hbody = self.funcs[fname][2]
                out.append(hbody)
                out.extend(self.helpers(hbody, seen))
        return out

    def extern_helper_calls(self, body):
        for m in re.finditer(r"\b(\w+)\s*\(([^;]*?)\)", body):
            if m.group(1) in self.funcs:
                continue
            args = m.group(2)
            if re.search(r"\bconf\b(?!->)", args) and re.search(r"\bprev\b(?!->)", args):
                return True
        return False


# --- merge policy ------------------------------------------------------------------------

ARRAY_HANDLERS = {"ngx_conf_set_str_array_slot", "ngx_conf_set_keyval_slot"}


def merge_policy(repo, struct, field, handler):
    """(policy, how) for `struct.field` from the merge functions of `struct`."""
    fns = repo.merges.get(struct)
    if not fns:
        return None
    path = re.escape(field)
    lhs = r"(\w+)->" + path + r"\b"
    bodies = []
    for fname, body in fns:
        bodies.append(body)
        bodies.extend(repo.helpers(body, {fname}))
    text = "\n".join(bodies)
    m = re.search(r"\bngx_conf_merge_(?:(\w+?)_)?value\s*\(\s*&?\s*\w+->" + path +
                  r"\s*,\s*&?\s*\w+->" + path + r"\b", text)
    if m:
        macro = "ngx_conf_merge_%svalue" % (m.group(1) + "_" if m.group(1) else "")
        if m.group(1) == "ptr" and handler in ARRAY_HANDLERS:
            return ("Array", "merge:%s+%s" % (macro, handler))
        return ("Inherited", "merge:" + macro)
    # `if (conf->f == NULL) { conf->f = prev->f; …}`: all of the parent's, or none of it.
    m = re.search(r"if\s*\(\s*" + lhs + r"\s*==\s*(NULL|NGX_CONF_UNSET_PTR)[^{;]*\)\s*\{?"
                  r"[^}]*?\1->" + path + r"\s*=\s*\w+->" + path + r"\b", text)
    if m:
        kind = "null-assign" if m.group(2) == "NULL" else "unset-ptr-assign"
        if handler in ARRAY_HANDLERS or kind == "null-assign":
            return ("Array", "merge:" + kind)
        return ("Inherited", "merge:" + kind)
    if re.search(r"\w+->" + path + r"\b", text):
        return ("Unknown", "unknown:merged-by-custom-code")
    if any(repo.extern_helper_calls(b) for b in bodies):
        return ("Unknown", "unknown:merge-calls-other-module")
    return ("NotInherited", "none:no-merge-of-field")


def handler_fields(repo, handler, struct):
    """Fields of `struct` a custom handler writes (`x->f =`, `x->f = ngx_array_create`,
    `ngx_array_push(x->f)`), where `x` is the handler's conf cast to `struct`."""
    entry = repo.funcs.get(handler)
    if not entry:
        return None
    body = entry[2]
    names = set(re.findall(re.escape(struct) + r"\s*\*\s*(\w+)\s*=", body))
    if not names:
        return None
    fields = set()
    for n in names:
        for m in re.finditer(r"\b" + n + r"->(\w+)(?:\.\w+)?\s*(?:=[^=]|\)|,)", body):
            fields.add(m.group(1))
    return sorted(fields)


def offset_field(expr):
    m = re.match(r"offsetof\s*\(\s*(\w+)\s*,\s*([\w.]+)\s*\)", expr)
    return (m.group(1), m.group(2)) if m else (None, None)


def conf_struct_of(repo, handler):
    """The conf struct a custom handler casts `conf` to."""
    entry = repo.funcs.get(handler)
    if not entry:
        return None
    m = re.search(r"(\w+)\s*\*\s*\w+\s*=\s*(?:\(\s*\w+\s*\*\s*\)\s*)?conf\s*;", entry[2])
    return m.group(1) if m else None


def classify_merge(repo, contexts, handler, conf_offset, offset):
    if conf_offset in ("NGX_HTTP_MAIN_CONF_OFFSET", "NGX_STREAM_MAIN_CONF_OFFSET",
                       "NGX_MAIL_MAIN_CONF_OFFSET") or conf_offset in ("0", ""):
        # main conf (one per http/stream/mail block) or a core module's: nothing below.
        if set(contexts) <= {"MAIN", "EVENTS", "HTTP", "STREAM", "MAIL"}:
            return ("NotInherited", "none:single-level")
    struct, field = offset_field(offset)
    if struct and field:
        pol = merge_policy(repo, struct, field, handler)
        if pol:
            return pol
        return ("NotInherited", "none:no-merge-function") if struct not in repo.merges \
            else ("Unknown", "unknown")
    struct = conf_struct_of(repo, handler)
    if struct:
        fields = handler_fields(repo, handler, struct)
        if fields:
            pols = {f: merge_policy(repo, struct, f, handler) for f in fields}
            merged = {f: p for f, p in pols.items() if p and p[0] != "NotInherited"}
            kinds = {p[0] for p in merged.values()}
            if len(kinds) == 1 and "Unknown" not in kinds:
                kind = kinds.pop()
                how = sorted({p[1] for p in merged.values()})
                return (kind, "%s(handler-fields:%s)" % ("+".join(how), ",".join(sorted(merged))))
            if pols and not merged and all(p for p in pols.values()):
                return ("NotInherited", "none:no-merge-of-handler-fields")
    return ("Unknown", "unknown")


# --- "is duplicate" ----------------------------------------------------------------------

DUP_RETURN = re.compile(r'if\s*\((?P<cond>[^{};]*?)\)\s*\{?\s*return\s+"is duplicate"')
# A condition that depends on what the earlier value was (`== 0`: it was `off`), on this
# occurrence's arguments (`value[…]`, string compares) or on a loop over earlier entries
# (`limit_req` per zone) makes the check conditional: the directive may repeat.
CONDITIONAL = re.compile(r"(?<![.>])\bvalue\b|\bngx_str\w*\s*\(|\[|==\s*(?:0|NULL|NGX_CONF_UNSET\w*)\b")


def duplicate_checked(repo, core, handler):
    """How a handler rejects a second value in one block: `dup:HANDLER` when every
    `return "is duplicate"` in it sits under a plain "already set" test (the generic slots
    of ngx_conf_file.c check their field is still unset; custom handlers that test their
    field the same way), `dup-if:HANDLER` when only some second values are rejected (after
    `off`, the same zone twice, …), None when it never says so."""
    body = None
    if handler in repo.funcs:
        body = repo.funcs[handler][2]
    elif handler in core.funcs:
        body = core.funcs[handler][2]
    if body is None or '"is duplicate"' not in body:
        return None
    found = list(DUP_RETURN.finditer(body))
    if len(found) != body.count('"is duplicate"'):
        return "dup-if:" + handler
    for m in found:
        before = body[:m.start()]
        if CONDITIONAL.search(m.group("cond")) or re.search(r"\b(for|while)\s*\(", before):
            return "dup-if:" + handler
    return "dup:" + handler


def delegated_slot(repo, handler):
    entry = repo.funcs.get(handler)
    if not entry:
        return None
    m = re.findall(r"(?:return\s+|\brv\s*=\s*)(ngx_conf_set_\w+_slot)\s*\(\s*cf\s*,\s*cmd\s*,\s*conf\s*\)", entry[2])
    return m[0] if len(set(m)) == 1 else None


# --- docs --------------------------------------------------------------------------------

def doc_versions():
    d = repo_dir(DOCS)
    if d is None:
        return {}, None
    commit = git(d, "rev-parse", "HEAD").decode().strip()
    data = git(d, "archive", "--format=tar", commit, "xml/en/docs")
    since = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for m in sorted(tar.getmembers(), key=lambda m: m.name):
            if not (m.isfile() and m.name.endswith(".xml")):
                continue
            text = tar.extractfile(m).read().decode("utf-8", "replace")
            mod = os.path.splitext(os.path.basename(m.name))[0]
            for dm in re.finditer(r'<directive\s+name="([^"]+)"[^>]*>(.*?)</directive>', text, re.S):
                ap = re.search(r"<appeared-in>([^<]+)</appeared-in>", dm.group(2))
                if ap:
                    since[(mod, dm.group(1))] = ap.group(1).strip()
    return since, commit


# --- reading -----------------------------------------------------------------------------

def read_repo(repo, core, dynamic):
    """Every command of every table in `repo`, as dicts."""
    out = []
    for path, text in repo.files.items():
        pre = strip_preprocessor(text)
        for arr, entries in parse_commands(pre):
            module = repo.modules.get((path, arr)) or repo.modules.get(arr)
            if module is None:
                continue  # a table no module registers (tests, examples)
            for f in entries:
                if len(f) < 5:
                    continue
                nm = re.match(r'ngx_string\(\s*"([^"]*)"\s*\)', f[0])
                if not nm:
                    continue
                ctx, ar, block, unknown = [], [], False, []
                for fl in flags(f[1]):
                    if fl in CONTEXT_FLAGS:
                        ctx.append(CONTEXT_FLAGS[fl])
                    elif fl in ARITY_FLAGS:
                        ar.extend(ARITY_FLAGS[fl])
                    elif fl == "NGX_CONF_BLOCK":
                        block = True
                    elif fl in IGNORED_FLAGS:
                        pass
                    elif re.match(r"NGX_\w+_CONF$", fl):
                        ctx.append("OTHER")  # a module's own context (rtmp's)
                    else:
                        unknown.append(fl)
                if unknown:
                    sys.exit("%s %s: unknown flags %s" % (path, nm.group(1), unknown))
                handler = f[2].strip()
                conf_offset = f[3].strip()
                offset = f[4].strip()
                _, field = offset_field(offset)
                merge, how = classify_merge(repo, ctx, handler, conf_offset, offset)
                # A custom handler that ends by handing over to a generic slot
                # (`return ngx_conf_set_flag_slot(cf, cmd, conf);`, as `ssl` did) checks
                # what that slot checks.
                slot = delegated_slot(repo, handler)
                dup = duplicate_checked(repo, core, handler) or (
                    slot and duplicate_checked(repo, core, slot))
                flag = handler == "ngx_conf_set_flag_slot" or (
                    slot == "ngx_conf_set_flag_slot" and "FLAG" in ar)
                out.append({
                    "name": nm.group(1),
                    "module": module,
                    "source": "%s:%s" % (repo.name.split("+", 1)[1], path),
                    "contexts": sorted(set(ctx), key=CONTEXT_ORDER.index),
                    "arity": sorted(set(ar), key=ARITY_ORDER.index),
                    "block": block,
                    "handler": handler,
                    "field": field or "",
                    "merge": merge,
                    "merge_how": how,
                    "duplicate": dup or "",
                    "flag": flag,
                    "dynamic": dynamic,
                    "removed": "",
                })
    return out


def release_tags(repo_path):
    tags = git(repo_path, "tag", "--list", "release-*").decode().split()
    best = {}
    for t in tags:
        m = re.match(r"release-(\d+)\.(\d+)\.(\d+)$", t)
        if not m:
            continue
        v = tuple(int(x) for x in m.groups())
        if v[:2] < OLD_RELEASE_MIN:
            continue
        if v[:2] not in best or v > best[v[:2]][0]:
            best[v[:2]] = (v, t)
    return [t for _, t in sorted(best.values())]


def rust_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def bits(names, empty="0"):
    return " | ".join(names) if names else empty



def optional_modules(core):
    """nginx's own modules that `./configure` leaves out unless asked (`--with-…`): those
    built under an `if [ $X = YES ]` / `if [ $X != NO ]` in auto/modules whose variable
    auto/options sets to NO. Their directives are unknown to an nginx built without them.
    {module: [the configure switches it needs, as `http_ssl`, `stream`]}: `--with-stream`
    also builds the stream modules that default to YES inside it."""
    defaults = dict(re.findall(r"^([A-Z0-9_]+)=(YES|NO)\s*$",
                               core.raw_file("auto/options"), re.M))
    out = {}
    stack = []  # one entry per open `if`: the switch it needs, or None
    text = core.raw_file("auto/modules").replace("\\\n", " ")  # join continued lines
    for line in text.splitlines():
        t = line.strip()
        m = re.match(r"if \[ \$([A-Z0-9_]+) (=|!=) (YES|NO) \]", t)
        if m:
            # USE_PCRE, USE_OPENSSL…: libraries configure finds and turns on by itself.
            var = m.group(1)
            off = defaults.get(var) == "NO" and not var.startswith("USE_")
            stack.append(re.sub(r"^ngx_", "", var.lower()) if off else None)
            continue
        if t.startswith("if "):
            stack.append(None)
            continue
        if t == "fi" and stack:
            stack.pop()
            continue
        m = re.match(r'ngx_module_name="?([^"]*)"?', t)
        gates = [g for g in stack if g]
        if m and gates:
            for name in m.group(1).split():
                if name.startswith("ngx_"):  # not `$MAIL_MODULES`
                    out.setdefault(name, gates)
    return sorted(out.items())


def generate():
    # Every mirror first: a missing one is known before minutes of reading the others.
    for name in THIRD_PARTY:
        if repo_dir(name) is None:
            raise MirrorMissing(name)
    core = Repo(NGINX)
    version = re.search(r'#define\s+NGINX_VERSION\s+"([^"]+)"', core.raw["src/core/nginx.h"]).group(1)
    entries = read_repo(core, core, False)
    header_repos = [(NGINX, core.commit)]
    head_names = {e["name"] for e in entries}
    # Directives of older releases that HEAD no longer has: kept, marked with the last
    # release that had them.
    removed = {}
    names_re = re.compile(r'ngx_string\(\s*"([^"]*)"\s*\)')

    def keep_old(path, text):
        # The generic handlers, and the files defining a name HEAD does not have: reading
        # every function of 22 releases would take minutes.
        if path in ("src/core/ngx_conf_file.c", "src/core/ngx_file.c"):
            return True
        if not path.startswith("src/") or "ngx_command_t" not in text:
            return False
        return any(n not in head_names for n in names_re.findall(text))

    for tag in release_tags(core.dir):
        old = Repo(NGINX, tag, keep=keep_old)
        for e in read_repo(old, old, False):
            if e["name"] not in head_names:
                e["removed"] = tag.split("-", 1)[1]
                removed[(e["name"], e["module"], tuple(e["contexts"]))] = e
    entries.extend(removed[k] for k in sorted(removed))
    for name in THIRD_PARTY:
        r = Repo(name)
        header_repos.append((name, r.commit))
        entries.extend(read_repo(r, core, True))
    since, docs_commit = doc_versions()
    for e in entries:
        e["since"] = since.get((e["module"], e["name"]), "")
    # One row per distinct fact set (a name in several modules, or contexts, stays).
    rows = {}
    for e in entries:
        key = (e["name"], e["module"], e["source"], tuple(e["contexts"]), tuple(e["arity"]),
               e["block"], e["handler"])
        rows.setdefault(key, e)
    rows = [rows[k] for k in sorted(rows)]

    lines = []
    w = lines.append
    w("// @generated by scripts/gen-nginx-catalogue.py from nginx's ngx_command_t tables")
    w("// — do not edit; rerun the script (or `--check` it).")
    w("//")
    w("// nginx %s" % version)
    for name, commit in header_repos:
        w("// %s %s" % (name, commit))
    if docs_commit:
        w("// %s %s (<appeared-in>)" % (DOCS, docs_commit))
    w("// Removed directives read from: %s" % " ".join(release_tags(core.dir)))
    w("")
    w("use super::ctx::*;")
    w("use super::{e, Arity, Entry, Merge};")
    w("")
    w("#[rustfmt::skip]")
    w("pub static ENTRIES: &[Entry] = &[")
    for e in rows:
        # One line per entry: name, module, source, contexts, arity, block, handler, field,
        # merge, how the merge was found, duplicate check, flag, dynamic, since, removed.
        w("    e(%s, %s, %s, %s, Arity(%s), %s, %s, %s, Merge::%s, %s, %s, %s, %s, %s, %s)," % (
            rust_str(e["name"]), rust_str(e["module"]), rust_str(e["source"]),
            bits(e["contexts"]), bits(["Arity::" + a for a in e["arity"]], "0"),
            "true" if e["block"] else "false", rust_str(e["handler"]), rust_str(e["field"]),
            e["merge"], rust_str(e["merge_how"]), rust_str(e["duplicate"]),
            "true" if e["flag"] else "false", "true" if e["dynamic"] else "false",
            rust_str(e["since"]), rust_str(e["removed"])))
    w("];")
    w("")
    w("/// nginx's own modules `./configure` builds only when asked, with the switches each")
    w("/// needs (`--with-http_ssl_module` is `http_ssl`), from auto/options and auto/modules.")
    w("#[rustfmt::skip]")
    w("pub static OPTIONAL_MODULES: &[(&str, &[&str])] = &[")
    for m, gates in optional_modules(core):
        w("    (%s, &[%s])," % (rust_str(m), ", ".join(rust_str(g) for g in gates)))
    w("];")
    return "\n".join(lines) + "\n"


class MirrorMissing(Exception):
    """A source mirror the catalogue is generated from is not on this machine."""


# `--check` exits with this when it cannot generate (a mirror is missing): nothing to compare,
# which tests/catalogue_data.rs reports as skipped rather than as a stale catalogue.
EXIT_CANNOT_CHECK = 3


def main():
    check = "--check" in sys.argv[1:]
    try:
        text = generate()
    except MirrorMissing as e:
        print("mirror missing: %s (under %s)" % (e.args[0], MIRRORS), file=sys.stderr)
        return EXIT_CANNOT_CHECK if check else 1
    if check:
        try:
            with open(OUT, encoding="utf-8") as f:
                cur = f.read()
        except FileNotFoundError:
            cur = ""
        if cur != text:
            print("%s is out of date: run scripts/gen-nginx-catalogue.py" % OUT, file=sys.stderr)
            return 1
        return 0
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
