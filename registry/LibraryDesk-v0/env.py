"""LibraryDesk: returns, fines, loans and holds with library tools (a shipped tool-use env)."""

import json
import random

from spadegym.program import ToolEnv, read_difficulty

AUTHORS = ["Ursula Vance", "Tomas Ekberg", "Nia Okoro", "Harold Finch", "Mei Lin Zhao",
           "Rafael Duarte", "Ingrid Holm", "Kofi Asante"]
WORDS = ["Silent", "River", "Glass", "Winter", "Hollow", "Paper", "Iron", "Amber", "Last",
         "Northern", "Salt", "Hidden", "Quiet", "Burning", "Lantern", "Orchard", "Harbor"]
NOUNS = ["Garden", "Letters", "Cartographer", "Tides", "Station", "Archive", "Crown", "Bridge",
         "Sisters", "Machine", "Orchard", "Voyage", "Kingdom", "Atlas"]
MEMBERS = ["Beatrix Cole", "Caleb Moss", "Delia Ruiz", "Edwin Shaw", "Freya Dahl",
           "Gemma Price", "Hassan Ali", "Isla Reed"]
FINE_PER_DAY = 25


def call(tool, **arguments):
    """Format one tool call the way the player writes it."""
    return "<tool_call>" + json.dumps({"name": tool, "arguments": arguments}) + "</tool_call>"


def money(cents):
    """Cents as a dollar string."""
    return f"{cents // 100}.{cents % 100:02d}"


class LibraryDeskEnv(ToolEnv):
    """LibraryDesk: serve a library member at the circulation desk.

    You work the circulation desk. The first message says which member is at the desk and what
    they need: return their overdue books (fines accrue per day late), settle fines, borrow a
    particular book and, at higher levels, place holds. Members with unpaid fines cannot
    borrow. Tools: find_member, get_loans, return_book, pay_fines, search_catalog,
    checkout_book, place_hold. Call them with
    <tool_call>{"name": "find_member", "arguments": {"name": "..."}}</tool_call>. When done,
    reply <answer>X</answer> with the dollars of fines paid. You win when the member's loans,
    fines and holds end exactly as asked and X is right."""

    max_turns = 24
    skill = "Tool_Use"
    tools = [
        {"name": "find_member", "description": "Members whose name contains the query.",
         "parameters": {"type": "object", "properties": {
             "name": {"type": "string", "description": "part of the name"}},
             "required": ["name"]}},
        {"name": "get_loans",
         "description": "A member's current loans with due dates, and unpaid fines.",
         "parameters": {"type": "object", "properties": {
             "member_id": {"type": "string", "description": "e.g. MB-310"}},
             "required": ["member_id"]}},
        {"name": "return_book",
         "description": "Check a book back in; a late return adds $0.25 per day late to fines.",
         "parameters": {"type": "object", "properties": {
             "member_id": {"type": "string", "description": "e.g. MB-310"},
             "book_id": {"type": "string", "description": "e.g. BK-5521"}},
             "required": ["member_id", "book_id"]}},
        {"name": "pay_fines", "description": "Take a payment against the member's fines.",
         "parameters": {"type": "object", "properties": {
             "member_id": {"type": "string", "description": "e.g. MB-310"},
             "amount": {"type": "number", "description": "dollars, at most what is owed"}},
             "required": ["member_id", "amount"]}},
        {"name": "search_catalog",
         "description": "Books by an author: id, title, year and copies available.",
         "parameters": {"type": "object", "properties": {
             "author": {"type": "string", "description": "part of the author's name"}},
             "required": ["author"]}},
        {"name": "checkout_book", "description": "Lend an available copy to a member.",
         "parameters": {"type": "object", "properties": {
             "member_id": {"type": "string", "description": "e.g. MB-310"},
             "book_id": {"type": "string", "description": "e.g. BK-5521"}},
             "required": ["member_id", "book_id"]}},
        {"name": "place_hold", "description": "Reserve a book that has no copy available.",
         "parameters": {"type": "object", "properties": {
             "member_id": {"type": "string", "description": "e.g. MB-310"},
             "book_id": {"type": "string", "description": "e.g. BK-5521"}},
             "required": ["member_id", "book_id"]}},
    ]

    def reset(self, seed=None, options=None):
        """Build the catalogue, the member and the request."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.turn = 0
        self.done = False
        rng = self.rng
        d = self.difficulty
        self.today = rng.randint(40, 80)
        authors = rng.sample(AUTHORS, 3)
        self.author = authors[0]
        self.books = {}
        bid = rng.randint(1000, 4000)
        titles = set()
        for k, author in enumerate(authors):
            for _ in range(3 + d if k == 0 else 2 + d):
                bid += rng.randint(1, 60)
                title = f"The {rng.choice(WORDS)} {rng.choice(NOUNS)}"
                while title in titles:
                    title = f"{rng.choice(WORDS)} {rng.choice(NOUNS)}"
                titles.add(title)
                self.books[f"BK-{bid}"] = {"book_id": f"BK-{bid}", "title": title,
                                           "author": author, "year": rng.randint(1960, 2023),
                                           "copies_available": rng.choice([0, 0, 1, 2])}
        mine = [b for b in self.books.values() if b["author"] == self.author]
        if not any(b["copies_available"] for b in mine):
            mine[-1]["copies_available"] = 1
        available = [b for b in mine if b["copies_available"]]
        self.want_book = min(available, key=lambda b: (b["year"], b["book_id"]))["book_id"]
        self.members = {}
        names = rng.sample(MEMBERS, 3)
        for k, name in enumerate(names):
            mid = f"MB-{rng.randint(100, 999)}{k}"
            self.members[mid] = {"member_id": mid, "name": name, "fines": 0, "loans": {},
                                 "holds": []}
        self.member = sorted(self.members)[0]
        self.members[self.member]["fines"] = rng.choice([0, 0, 50, 125])
        others = [b for b in self.books if b not in [x["book_id"] for x in mine]]
        loaned = rng.sample(others, 2 + d // 2)
        self.overdue = []
        for k, book in enumerate(loaned):
            late = k % 2 == 0 or rng.random() < 0.3
            due = self.today - rng.randint(1, 20) if late else self.today + rng.randint(0, 14)
            self.members[self.member]["loans"][book] = due
            if due < self.today:
                self.overdue.append(book)
        self.want_fine = self.members[self.member]["fines"] + sum(
            (self.today - self.members[self.member]["loans"][b]) * FINE_PER_DAY
            for b in self.overdue)
        self.holds = d >= 3
        self.cutoff = rng.choice([1980, 1990, 2000])
        self.want_holds = sorted(b["book_id"] for b in mine
                                 if not b["copies_available"] and b["year"] >= self.cutoff)
        self.start_members = json.loads(json.dumps(self.members))
        return self.render_intro(), {"turn": 0}

    def render_intro(self):
        """The task, the tools and the formats."""
        name = self.members[self.member]["name"]
        steps = [f"{name} is returning every book of theirs that is overdue (due before today, "
                 f"day {self.today}); check those in and keep the other loans.",
                 "Collect payment for all of the member's fines.",
                 f"Lend them the earliest-published book by {self.author} that has a copy "
                 "available."]
        if self.holds:
            steps.append(f"Place a hold for them on every book by {self.author} published in "
                         f"{self.cutoff} or later that has no copy available.")
        text = "\n".join(f"{k + 1}. {s}" for k, s in enumerate(steps))
        return (
            f"Circulation desk, day {self.today}. Request:\n{text}\n"
            "Finish with <answer>X</answer>, X = dollars of fines paid (e.g. 3.75).\n\n"
            f"Tools (JSON specs):\n{self.describe_tools()}\n\n"
            'Call a tool: <tool_call>{"name": "find_member", "arguments": {"name": "..."}}'
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

    def who(self, value):
        """Validate a member id."""
        if not isinstance(value, str) or value.strip().upper() not in self.members:
            raise ValueError(f"no member {value!r}; use find_member to get ids like MB-310")
        return self.members[value.strip().upper()]

    def book(self, value):
        """Validate a book id."""
        if not isinstance(value, str) or value.strip().upper() not in self.books:
            raise ValueError(f"no book {value!r}; ids look like BK-5521")
        return self.books[value.strip().upper()]

    def tool_find_member(self, name=None):
        """Find members."""
        if not isinstance(name, str) or len(name.strip()) < 2:
            raise ValueError("'name' must be at least 2 characters of a member's name")
        rows = [{"member_id": m["member_id"], "name": m["name"]} for m in self.members.values()
                if name.strip().lower() in m["name"].lower()]
        return rows if rows else f"no member matches {name!r}"

    def tool_get_loans(self, member_id=None):
        """Show loans and fines."""
        m = self.who(member_id)
        loans = [{"book_id": b, "title": self.books[b]["title"], "due_day": due}
                 for b, due in sorted(m["loans"].items())]
        return {"member_id": m["member_id"], "today": self.today, "loans": loans,
                "fines": money(m["fines"]), "holds": m["holds"]}

    def tool_return_book(self, member_id=None, book_id=None):
        """Check a book in."""
        m = self.who(member_id)
        b = self.book(book_id)
        if b["book_id"] not in m["loans"]:
            raise ValueError(f"{b['book_id']} is not on loan to {m['member_id']}")
        due = m["loans"].pop(b["book_id"])
        fine = max(0, self.today - due) * FINE_PER_DAY
        m["fines"] += fine
        b["copies_available"] += 1
        return {"returned": b["book_id"], "days_late": max(0, self.today - due),
                "fine_added": money(fine), "fines_now": money(m["fines"])}

    def tool_pay_fines(self, member_id=None, amount=None):
        """Take a payment."""
        m = self.who(member_id)
        if isinstance(amount, bool) or not isinstance(amount, (int, float)):
            raise ValueError(f"'amount' must be a number of dollars, got {amount!r}")
        cents = round(amount * 100)
        if cents <= 0 or cents > m["fines"]:
            raise ValueError(f"'amount' must be positive and at most the fines owed "
                             f"({money(m['fines'])})")
        m["fines"] -= cents
        m["paid"] = m.get("paid", 0) + cents
        return {"paid": money(cents), "fines_now": money(m["fines"])}

    def tool_search_catalog(self, author=None):
        """Books by an author."""
        if not isinstance(author, str) or len(author.strip()) < 2:
            raise ValueError("'author' must be at least 2 characters of an author's name")
        rows = [b for b in self.books.values() if author.strip().lower() in b["author"].lower()]
        return rows if rows else f"no books by {author!r}"

    def tool_checkout_book(self, member_id=None, book_id=None):
        """Lend a copy."""
        m = self.who(member_id)
        b = self.book(book_id)
        if m["fines"]:
            raise ValueError(f"{m['member_id']} owes {money(m['fines'])}; fines must be paid first")
        if b["copies_available"] <= 0:
            raise ValueError(f"no copy of {b['book_id']} is available; place a hold instead")
        if b["book_id"] in m["loans"]:
            raise ValueError(f"{m['member_id']} already has {b['book_id']}")
        b["copies_available"] -= 1
        m["loans"][b["book_id"]] = self.today + 21
        return {"lent": b["book_id"], "due_day": self.today + 21}

    def tool_place_hold(self, member_id=None, book_id=None):
        """Reserve a book."""
        m = self.who(member_id)
        b = self.book(book_id)
        if b["copies_available"] > 0:
            raise ValueError(f"{b['book_id']} has a copy available; borrow it instead")
        if b["book_id"] in m["holds"]:
            raise ValueError(f"{m['member_id']} already holds {b['book_id']}")
        m["holds"].append(b["book_id"])
        return {"hold": b["book_id"], "member_id": m["member_id"]}

    def check(self, answer):
        """1.0 when loans, fines and holds are exactly as asked and X is right."""
        start = self.start_members[self.member]
        m = self.members[self.member]
        want_loans = {b: due for b, due in start["loans"].items() if b not in self.overdue}
        want_loans[self.want_book] = self.today + 21
        if m["loans"] != want_loans or m["fines"] != 0:
            return 0.0
        if sorted(m["holds"]) != (self.want_holds if self.holds else []):
            return 0.0
        for mid, row in self.members.items():
            if mid != self.member and row["loans"] != self.start_members[mid]["loans"]:
                return 0.0
        try:
            value = round(float(str(answer).strip().replace("$", "")) * 100)
        except ValueError:
            return 0.0
        return 1.0 if value == self.want_fine else 0.0

    def solution(self):
        """Return, pay, borrow, hold, answer."""
        name = self.members[self.member]["name"]
        replies = [call("find_member", name=name), call("get_loans", member_id=self.member)]
        for b in self.overdue:
            replies.append(call("return_book", member_id=self.member, book_id=b))
        if self.want_fine:
            replies.append(call("pay_fines", member_id=self.member,
                                amount=float(money(self.want_fine))))
        replies.append(call("search_catalog", author=self.author))
        replies.append(call("checkout_book", member_id=self.member, book_id=self.want_book))
        if self.holds:
            for b in self.want_holds:
                replies.append(call("place_hold", member_id=self.member, book_id=b))
        replies.append(f"<answer>{money(self.want_fine)}</answer>")
        return replies

    def hint(self):
        """Approach only."""
        return ("Compare each loan's due day with today before returning anything: only late "
                "ones go back, and each adds a fine. Read the fines after the returns, pay them "
                "in full, and only then borrow; holds apply to unavailable copies only.")
