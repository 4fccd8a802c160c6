"""TicketDesk: triage an issue tracker's backlog with tracker tools (a shipped tool-use env)."""

import json
import random

from spadegym.program import ToolEnv, read_difficulty

COMPONENTS = ["auth", "billing", "search", "mobile", "reports", "api", "ui"]
TEAMS = {"core": ["amir", "bea", "chidi", "dana"], "web": ["eli", "fern", "gus", "hana"],
         "platform": ["ivo", "jade", "kemal", "lea"]}
PROBLEMS = ["crash on save", "timeout under load", "wrong total shown", "login loop",
            "broken link", "slow query", "missing translation", "double email sent",
            "stale cache", "export fails", "icon misaligned", "date off by one"]


def call(tool, **arguments):
    """Format one tool call the way the player writes it."""
    return "<tool_call>" + json.dumps({"name": tool, "arguments": arguments}) + "</tool_call>"


class TicketDeskEnv(ToolEnv):
    """TicketDesk: triage one component's open issues.

    You triage an issue tracker. For the component named in the first message: close every
    open issue whose description says it duplicates another (resolution 'duplicate', with a
    comment naming the original as #ID), then assign each remaining open, unassigned 'bug' to
    the member of the named team with the fewest open assigned issues at that moment (ties:
    alphabetical), going through the bugs in increasing id. Tools: search_issues, get_issue,
    list_team, assign_issue, close_issue, add_comment. Call them with
    <tool_call>{"name": "search_issues", "arguments": {"component": "auth"}}</tool_call>. When
    done, reply <answer>N</answer> with the number of issues you closed. You win when the
    tracker ends exactly as the rules say and N is right."""

    max_turns = 36
    skill = "Tool_Use"
    tools = [
        {"name": "search_issues",
         "description": "Issues matching all given filters (id, title, status, labels, "
                        "assignee); descriptions are not included.",
         "parameters": {"type": "object", "properties": {
             "component": {"type": "string", "description": "e.g. auth"},
             "status": {"type": "string", "description": "open or closed"},
             "label": {"type": "string", "description": "e.g. bug"},
             "assignee": {"type": "string", "description": "user name, or 'none'"}},
             "required": []}},
        {"name": "get_issue", "description": "One issue in full, with its description.",
         "parameters": {"type": "object", "properties": {
             "issue_id": {"type": "integer", "description": "e.g. 412"}},
             "required": ["issue_id"]}},
        {"name": "list_team",
         "description": "Members of a team with how many open issues each is assigned.",
         "parameters": {"type": "object", "properties": {
             "team": {"type": "string", "description": "core, web or platform"}},
             "required": ["team"]}},
        {"name": "assign_issue", "description": "Assign an open issue to a user.",
         "parameters": {"type": "object", "properties": {
             "issue_id": {"type": "integer", "description": "issue number"},
             "assignee": {"type": "string", "description": "user name"}},
             "required": ["issue_id", "assignee"]}},
        {"name": "close_issue", "description": "Close an open issue with a resolution.",
         "parameters": {"type": "object", "properties": {
             "issue_id": {"type": "integer", "description": "issue number"},
             "resolution": {"type": "string", "description": "fixed, duplicate or wontfix"}},
             "required": ["issue_id", "resolution"]}},
        {"name": "add_comment", "description": "Add a comment to an issue.",
         "parameters": {"type": "object", "properties": {
             "issue_id": {"type": "integer", "description": "issue number"},
             "text": {"type": "string", "description": "comment text"}},
             "required": ["issue_id", "text"]}},
    ]

    def reset(self, seed=None, options=None):
        """Build the backlog and pick the component and team."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.turn = 0
        self.done = False
        rng = self.rng
        d = self.difficulty
        self.component = rng.choice(COMPONENTS)
        self.team = rng.choice(sorted(TEAMS))
        users = [u for t in sorted(TEAMS) for u in TEAMS[t]]
        self.issues = {}
        num = rng.randint(100, 700)
        for _ in range(6 + 2 * d):
            num += rng.randint(1, 9)
            comp = self.component if rng.random() < 0.7 else rng.choice(COMPONENTS)
            status = "open" if rng.random() < 0.85 else "closed"
            labels = ["bug"] if rng.random() < 0.65 else [rng.choice(["feature", "docs", "chore"])]
            assignee = rng.choice(users) if rng.random() < 0.35 else None
            self.issues[num] = {"issue_id": num, "title": rng.choice(PROBLEMS), "component": comp,
                                "status": status, "resolution": None, "labels": labels,
                                "assignee": assignee, "description": "Steps to reproduce attached.",
                                "comments": []}
        mine = [i for i in sorted(self.issues) if self.issues[i]["component"] == self.component]
        while len(mine) < 4:
            num += 3
            self.issues[num] = {"issue_id": num, "title": rng.choice(PROBLEMS),
                                "component": self.component, "status": "open",
                                "resolution": None, "labels": ["bug"], "assignee": None,
                                "description": "Reported by support.", "comments": []}
            mine.append(num)
        self.dups = {}
        for k in range(1 + d // 2):
            dup = mine[-1 - k]
            original = mine[k]
            row = self.issues[dup]
            row["status"] = "open"
            row["title"] = self.issues[original]["title"]
            row["description"] = f"Same as the report in #{original}. Duplicate of #{original}."
            self.dups[dup] = original
        for k in mine:
            if k not in self.dups and self.issues[k]["status"] == "open" and rng.random() < 0.5:
                self.issues[k]["description"] = "Possibly related to #" + str(rng.choice(mine))
        self.start = json.loads(json.dumps(self.issues))
        self.plan = self.plan_assignments()
        return self.render_intro(), {"turn": 0}

    def open_count(self, user, issues):
        """Open issues assigned to a user."""
        return sum(1 for i in issues.values() if i["status"] == "open" and i["assignee"] == user)

    def plan_assignments(self):
        """Replay the rules on a copy: dup closures first, then bugs by id."""
        issues = json.loads(json.dumps(self.start))
        for dup in self.dups:
            issues[str(dup)]["status"] = "closed"
        plan = []
        for key in sorted(issues, key=int):
            row = issues[key]
            if (row["component"] == self.component and row["status"] == "open"
                    and row["assignee"] is None and "bug" in row["labels"]):
                who = min(TEAMS[self.team], key=lambda u: (self.open_count(u, issues), u))
                row["assignee"] = who
                plan.append((int(key), who))
        return plan

    def render_intro(self):
        """The task, the tools and the formats."""
        return (
            f"Triage request: component '{self.component}', assign to team '{self.team}' "
            f"({', '.join(TEAMS[self.team])}). The tracker holds issues #{min(self.issues)} to "
            f"#{max(self.issues)}.\n"
            "1. Close each open issue of the component whose description says 'Duplicate of "
            "#ID' with resolution 'duplicate' and a comment that names #ID. 'Related to' is not "
            "a duplicate.\n"
            "2. Then, in increasing id order, assign each open, unassigned issue of the "
            "component labelled 'bug' to the team member with the fewest open assigned issues "
            "at that moment (ties: alphabetical).\n"
            "Change nothing else. Finish with <answer>N</answer>, N = issues you closed.\n\n"
            f"Tools (JSON specs):\n{self.describe_tools()}\n\n"
            'Call a tool: <tool_call>{"name": "search_issues", "arguments": {"component": '
            '"auth", "status": "open"}}</tool_call>. Several calls per reply are fine; the answer '
            f"ends the episode.\nTurn 0 of {self.max_turns}."
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

    def issue(self, value):
        """Validate an issue number."""
        if isinstance(value, str) and value.strip().lstrip("#").isdigit():
            value = int(value.strip().lstrip("#"))
        if isinstance(value, bool) or not isinstance(value, int) or value not in self.issues:
            raise ValueError(f"no issue {value!r}; use search_issues to find issue numbers")
        return self.issues[value]

    def tool_search_issues(self, component=None, status=None, label=None, assignee=None):
        """Filter issues."""
        rows = []
        for row in self.issues.values():
            if component is not None and row["component"] != str(component).strip().lower():
                continue
            if status is not None and row["status"] != str(status).strip().lower():
                continue
            if label is not None and str(label).strip().lower() not in row["labels"]:
                continue
            if assignee is not None:
                want = str(assignee).strip().lower()
                if (want in ("none", "") and row["assignee"] is not None) or (
                        want not in ("none", "") and row["assignee"] != want):
                    continue
            rows.append({k: row[k] for k in ("issue_id", "title", "component", "status",
                                             "labels", "assignee")})
        return rows if rows else "no issues match"

    def tool_get_issue(self, issue_id=None):
        """One issue in full."""
        return self.issue(issue_id)

    def tool_list_team(self, team=None):
        """Team workload."""
        if not isinstance(team, str) or team.strip().lower() not in TEAMS:
            raise ValueError(f"'team' must be one of {', '.join(sorted(TEAMS))}, got {team!r}")
        return [{"user": u, "open_assigned": self.open_count(u, self.issues)}
                for u in TEAMS[team.strip().lower()]]

    def tool_assign_issue(self, issue_id=None, assignee=None):
        """Assign an issue."""
        row = self.issue(issue_id)
        users = [u for t in TEAMS.values() for u in t]
        if not isinstance(assignee, str) or assignee.strip().lower() not in users:
            raise ValueError(f"unknown user {assignee!r}; use list_team")
        if row["status"] != "open":
            raise ValueError(f"issue {row['issue_id']} is closed")
        row["assignee"] = assignee.strip().lower()
        return {"issue_id": row["issue_id"], "assignee": row["assignee"]}

    def tool_close_issue(self, issue_id=None, resolution=None):
        """Close an issue."""
        row = self.issue(issue_id)
        if not isinstance(resolution, str) or resolution.strip().lower() not in (
                "fixed", "duplicate", "wontfix"):
            raise ValueError(f"'resolution' must be fixed, duplicate or wontfix, got {resolution!r}")
        if row["status"] != "open":
            raise ValueError(f"issue {row['issue_id']} is already closed")
        row["status"] = "closed"
        row["resolution"] = resolution.strip().lower()
        return {"issue_id": row["issue_id"], "status": "closed", "resolution": row["resolution"]}

    def tool_add_comment(self, issue_id=None, text=None):
        """Comment on an issue."""
        row = self.issue(issue_id)
        if not isinstance(text, str) or not text.strip() or len(text) > 500:
            raise ValueError("'text' must be a non-empty string of at most 500 characters")
        row["comments"].append(text.strip())
        return {"issue_id": row["issue_id"], "comments": len(row["comments"])}

    def check(self, answer):
        """1.0 when closures, comments and assignments follow the rules and N is right."""
        want_assignee = dict(self.plan)
        for key, row in self.issues.items():
            start = self.start[str(key)]
            if key in self.dups:
                if row["status"] != "closed" or row["resolution"] != "duplicate":
                    return 0.0
                if not any(f"#{self.dups[key]}" in c for c in row["comments"]):
                    return 0.0
            elif row["status"] != start["status"]:
                return 0.0
            if row["assignee"] != want_assignee.get(key, start["assignee"]):
                return 0.0
        try:
            count = int(str(answer).strip())
        except ValueError:
            return 0.0
        return 1.0 if count == len(self.dups) else 0.0

    def solution(self):
        """Search, read, close duplicates, check workload, assign, answer."""
        replies = [call("search_issues", component=self.component, status="open")]
        for key in sorted(self.issues):
            row = self.start[str(key)]
            if row["component"] == self.component and row["status"] == "open":
                replies.append(call("get_issue", issue_id=key))
        for dup, original in sorted(self.dups.items()):
            replies.append(call("close_issue", issue_id=dup, resolution="duplicate"))
            replies.append(call("add_comment", issue_id=dup, text=f"Duplicate of #{original}."))
        replies.append(call("list_team", team=self.team))
        for key, who in self.plan:
            replies.append(call("assign_issue", issue_id=key, assignee=who))
        replies.append(f"<answer>{len(self.dups)}</answer>")
        return replies

    def hint(self):
        """Approach only."""
        return ("Open each issue of the component to read its description, since search hides "
                "it. Close the duplicates before counting workloads, then keep a running tally "
                "per team member as you assign, updating it after every assignment.")
