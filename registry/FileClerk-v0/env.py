"""FileClerk: tidy a small virtual file system with file tools (a shipped tool-use env)."""

import json
import random

from spadegym.program import ToolEnv, read_difficulty

PROJECTS = ["atlas", "borealis", "cobalt", "delta", "ember", "fjord", "granite", "helix",
            "ion", "juniper", "krypton", "lumen"]
TOPICS = ["budget notes", "meeting minutes", "design review", "test report", "vendor quote",
          "travel plan", "status update", "risk log", "hiring plan", "release checklist"]
STEMS = ["memo", "notes", "draft", "summary", "minutes", "report", "plan", "log", "brief"]


def call(tool: str, **arguments) -> str:
    """Format one tool call the way the player writes it."""
    return "<tool_call>" + json.dumps({"name": tool, "arguments": arguments}) + "</tool_call>"


def clean_path(value, what: str = "path") -> str:
    """Validate an absolute path argument and drop a trailing slash."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"'{what}' must be a non-empty string such as '/inbox/memo_1.txt'")
    path = value.strip()
    if not path.startswith("/"):
        raise ValueError(f"'{what}' = {path!r} must be absolute (start with '/')")
    if len(path) > 1 and path.endswith("/"):
        path = path[:-1]
    if "//" in path or len(path) > 200:
        raise ValueError(f"'{what}' = {path!r} is not a valid path")
    return path


def parent_of(path: str) -> str:
    """The folder that holds ``path``."""
    head = path.rsplit("/", 1)[0]
    return head if head else "/"


class FileClerkEnv(ToolEnv):
    """FileClerk: tidy up a shared drive with file-system tools.

    You are an assistant with access to a small virtual file system. The first message gives a
    list of chores (create a project folder, file the right memos into it, clean stale backups,
    write an index). Inspect the drive with list_dir and read_file, change it with make_dir,
    move_file, delete_file and write_file. Call tools with
    <tool_call>{"name": "list_dir", "arguments": {"path": "/inbox"}}</tool_call> (several per
    reply are allowed). When every chore is done, reply <answer>N</answer> where N is the number
    of files you moved into the project folder. You win when the drive is exactly as asked and
    N is right."""

    max_turns = 40
    skill = "Tool_Use"
    tools = [
        {"name": "list_dir", "description": "List the files and folders directly inside a folder.",
         "parameters": {"type": "object", "properties": {
             "path": {"type": "string", "description": "absolute folder path, e.g. /inbox"}},
             "required": ["path"]}},
        {"name": "read_file", "description": "Return the text content of a file.",
         "parameters": {"type": "object", "properties": {
             "path": {"type": "string", "description": "absolute file path"}},
             "required": ["path"]}},
        {"name": "make_dir", "description": "Create a folder (its parent must exist).",
         "parameters": {"type": "object", "properties": {
             "path": {"type": "string", "description": "absolute path of the new folder"}},
             "required": ["path"]}},
        {"name": "move_file",
         "description": "Move a file. If destination is an existing folder the file keeps its "
                        "name; otherwise destination is the new full path.",
         "parameters": {"type": "object", "properties": {
             "source": {"type": "string", "description": "absolute path of the file"},
             "destination": {"type": "string", "description": "folder or new file path"}},
             "required": ["source", "destination"]}},
        {"name": "delete_file", "description": "Delete a file (folders cannot be deleted).",
         "parameters": {"type": "object", "properties": {
             "path": {"type": "string", "description": "absolute file path"}},
             "required": ["path"]}},
        {"name": "write_file",
         "description": "Create or overwrite a text file (its folder must exist).",
         "parameters": {"type": "object", "properties": {
             "path": {"type": "string", "description": "absolute file path"},
             "content": {"type": "string", "description": "the full text of the file"}},
             "required": ["path", "content"]}},
    ]

    def reset(self, seed=None, options=None):
        """Build a drive and a list of chores from ``seed`` and the difficulty."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.turn = 0
        self.done = False
        rng = self.rng
        d = self.difficulty
        self.dirs = {"/", "/inbox", "/archive", "/tmp", "/projects"}
        self.files = {}
        names = rng.sample(PROJECTS, 4)
        self.project = names[0]
        self.projects = names
        used = set()

        def fresh(ext: str) -> str:
            while True:
                name = f"{rng.choice(STEMS)}_{rng.randint(1, 99)}{ext}"
                if name not in used:
                    used.add(name)
                    return name

        n_inbox = 3 + 2 * d + rng.randint(0, 2)
        n_target = max(2, n_inbox // 3 + rng.randint(0, 1))
        owners = [self.project] * n_target + [rng.choice(names[1:]) for _ in range(n_inbox - n_target)]
        rng.shuffle(owners)
        self.to_move = []
        for owner in owners:
            name = fresh(".txt")
            mention = owner
            body = f"Project: {mention}\nSubject: {rng.choice(TOPICS)}\n"
            if owner != self.project and rng.random() < 0.4:
                body += f"See also the {self.project} thread (no action needed here).\n"
            body += f"Owner: {rng.choice(['kim', 'ravi', 'ana', 'li', 'omar', 'sara'])}\n"
            self.files["/inbox/" + name] = body
            if owner == self.project:
                self.to_move.append(name)
        self.to_move.sort()
        self.chores = [
            f"Create the folder /projects/{self.project}.",
            f"Move every file in /inbox whose 'Project:' line names {self.project} into "
            f"/projects/{self.project} (keep the file names). Leave the other inbox files alone.",
        ]
        self.stale = []
        if d >= 2:
            n_tmp = 2 + d + rng.randint(0, 1)
            for k in range(n_tmp):
                base = fresh("")
                self.files["/tmp/" + base + ".bak"] = f"backup of {base}\n"
                if k % 2 == 0 or rng.random() < 0.3:
                    self.files["/archive/" + base + ".txt"] = f"archived {base}\n"
                    self.stale.append(base + ".bak")
            for _ in range(2):
                base = fresh("")
                self.files["/archive/" + base + ".txt"] = f"archived {base}\n"
            self.files["/tmp/" + fresh(".log")] = "session log\n"
            self.chores.append(
                "In /tmp, delete every .bak file whose base name has a matching .txt file in "
                "/archive (e.g. /tmp/x.bak goes if /archive/x.txt exists). Keep the other files."
            )
        self.index = d >= 4
        if self.index:
            self.chores.append(
                f"Write /projects/{self.project}/INDEX.txt listing the names of the files you "
                "moved, one per line, in alphabetical order."
            )
        self.start_files = dict(self.files)
        return self.render_intro(), {"turn": 0}

    def render_intro(self) -> str:
        """The task, the tools and the formats."""
        chores = "\n".join(f"{k + 1}. {c}" for k, c in enumerate(self.chores))
        counts = ", ".join(
            f"{d} ({sum(1 for f in self.files if parent_of(f) == d)} files)"
            for d in ["/inbox", "/archive", "/tmp", "/projects"]
        )
        return (
            f"You manage a shared drive. Top-level folders: {counts}.\n"
            f"Chores:\n{chores}\n"
            "Then answer <answer>N</answer> with N = the number of files you moved.\n\n"
            f"Tools (JSON specs):\n{self.describe_tools()}\n\n"
            'Call a tool: <tool_call>{"name": "list_dir", "arguments": {"path": "/inbox"}}'
            "</tool_call>. Several calls per reply are fine; the answer ends the episode.\n"
            f"Turn 0 of {self.max_turns}."
        )

    def step(self, action):
        """Run the reply's tool calls (base class), then report progress."""
        self.turn += 1
        if self.done:
            return "The episode is over.", 0.0, True, False, {"turn": self.turn}
        obs, reward, terminated, truncated, info = ToolEnv.step(self, action)
        self.done = terminated
        if len(obs) > 7600:
            # many calls in one reply can overflow the observation limit; keep the head
            obs = obs[:7600] + "\n[output truncated: make fewer tool calls per reply]"
        obs = f"{obs}\nTurn {self.turn} of {self.max_turns}."
        if not terminated and self.turn >= self.max_turns:
            obs += " Out of turns."
        return obs, reward, terminated, False, {"turn": self.turn}

    def tool_list_dir(self, path=None):
        """List a folder."""
        path = clean_path(path)
        if path not in self.dirs:
            raise ValueError(f"folder {path!r} does not exist; list '/' to see the folders")
        prefix = path if path == "/" else path + "/"
        items = []
        for d in self.dirs:
            if d != path and parent_of(d) == path:
                items.append(d[len(prefix):] + "/")
        for f in self.files:
            if parent_of(f) == path:
                items.append(f[len(prefix):])
        return sorted(items)

    def tool_read_file(self, path=None):
        """Read a file."""
        path = clean_path(path)
        if path not in self.files:
            raise ValueError(f"file {path!r} does not exist; use list_dir on its folder")
        return self.files[path]

    def tool_make_dir(self, path=None):
        """Create a folder."""
        path = clean_path(path)
        if path in self.dirs or path in self.files:
            raise ValueError(f"{path!r} already exists")
        if parent_of(path) not in self.dirs:
            raise ValueError(f"parent folder {parent_of(path)!r} does not exist; create it first")
        self.dirs.add(path)
        return f"created {path}"

    def tool_move_file(self, source=None, destination=None):
        """Move a file into a folder or to a new path."""
        source = clean_path(source, "source")
        destination = clean_path(destination, "destination")
        if source not in self.files:
            raise ValueError(f"source file {source!r} does not exist")
        if destination in self.dirs:
            target = (destination if destination != "/" else "") + "/" + source.rsplit("/", 1)[1]
        else:
            target = destination
            if parent_of(target) not in self.dirs:
                raise ValueError(f"folder {parent_of(target)!r} does not exist; make_dir it first")
        if target in self.files and target != source:
            raise ValueError(f"{target!r} already exists; refusing to overwrite")
        self.files[target] = self.files.pop(source)
        return f"moved {source} -> {target}"

    def tool_delete_file(self, path=None):
        """Delete a file."""
        path = clean_path(path)
        if path in self.dirs:
            raise ValueError(f"{path!r} is a folder; only files can be deleted")
        if path not in self.files:
            raise ValueError(f"file {path!r} does not exist")
        del self.files[path]
        return f"deleted {path}"

    def tool_write_file(self, path=None, content=None):
        """Write a file."""
        path = clean_path(path)
        if not isinstance(content, str):
            raise ValueError("'content' must be a string (the full text of the file)")
        if len(content) > 2000:
            raise ValueError("'content' is limited to 2000 characters")
        if path in self.dirs:
            raise ValueError(f"{path!r} is a folder")
        if parent_of(path) not in self.dirs:
            raise ValueError(f"folder {parent_of(path)!r} does not exist; make_dir it first")
        self.files[path] = content
        return f"wrote {len(content)} characters to {path}"

    def expected_state(self) -> tuple[set, dict]:
        """The folders and files the chores should leave (INDEX content checked separately)."""
        dirs = {"/", "/inbox", "/archive", "/tmp", "/projects", "/projects/" + self.project}
        files = {}
        for path, text in self.start_files.items():
            name = path.rsplit("/", 1)[1]
            if path.startswith("/inbox/") and name in self.to_move:
                files[f"/projects/{self.project}/{name}"] = text
            elif path.startswith("/tmp/") and name in self.stale:
                continue
            else:
                files[path] = text
        return dirs, files

    def check(self, answer):
        """1.0 when the drive matches the chores and the count is right, else 0.0."""
        try:
            count = int(str(answer).strip())
        except ValueError:
            return 0.0
        dirs, files = self.expected_state()
        actual = dict(self.files)
        index_path = f"/projects/{self.project}/INDEX.txt"
        if self.index:
            text = actual.pop(index_path, None)
            if not isinstance(text, str):
                return 0.0
            lines = [line.strip() for line in text.splitlines() if line.strip()]
            if lines != self.to_move:
                return 0.0
        if set(self.dirs) != dirs or actual != files:
            return 0.0
        return 1.0 if count == len(self.to_move) else 0.0

    def solution(self):
        """Inspect, then perform every chore, then answer."""
        start = self.start_files
        replies = [call("list_dir", path="/inbox")]
        for path in sorted(start):
            if path.startswith("/inbox/"):
                replies.append(call("read_file", path=path))
        folder = "/projects/" + self.project
        replies.append(call("make_dir", path=folder))
        for name in self.to_move:
            replies.append(call("move_file", source="/inbox/" + name, destination=folder))
        if self.stale:
            replies.append(call("list_dir", path="/tmp"))
            replies.append(call("list_dir", path="/archive"))
            for name in sorted(self.stale):
                replies.append(call("delete_file", path="/tmp/" + name))
        if self.index:
            replies.append(call("write_file", path=folder + "/INDEX.txt",
                                content="\n".join(self.to_move) + "\n"))
        replies.append(f"<answer>{len(self.to_move)}</answer>")
        return replies

    def hint(self):
        """Approach only."""
        return ("Read every inbox file before moving anything: only the 'Project:' line decides "
                "where a memo belongs, not other mentions. Compare /tmp with /archive by base "
                "name before deleting, and count your moves for the answer.")
