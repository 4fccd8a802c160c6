"""InboxTriage: answer a request and tidy a mailbox with messaging tools (shipped tool env)."""

import json
import random

from spadegym.program import ToolEnv, read_difficulty

NAMES = ["Priya Shah", "Marco Bianchi", "Yara Haddad", "Tom Fischer", "Lena Park", "Omar Aziz",
         "Sofia Lund", "Kwame Mensah", "Ruth Adler", "Diego Ramos"]
THINGS = ["server room door code", "conference Wi-Fi password PIN", "storage locker code",
          "VPN recovery PIN", "parking gate code", "lab freezer alarm code"]
NEWS = ["TechWeekly", "DealsDigest", "CityEvents", "GardenTips", "CloudNews", "RunClub"]
CHATTER = ["Lunch on Friday?", "Slides for Monday", "Re: invoice 2231", "Holiday rota",
           "Quick question", "Printer on floor 3", "Team photo", "Re: onboarding"]


def call(tool, **arguments):
    """Format one tool call the way the player writes it."""
    return "<tool_call>" + json.dumps({"name": tool, "arguments": arguments}) + "</tool_call>"


def email_of(name):
    """A person's work address."""
    first, last = name.lower().split(" ", 1)
    return f"{first}.{last}@corp.example"


class InboxTriageEnv(ToolEnv):
    """InboxTriage: answer a colleague's request and clean up the inbox.

    You manage a mailbox. The first message says who needs which code, who sent it to you, and
    which clean-up to do. List folders with list_messages (headers only), open messages with
    read_message, find addresses with lookup_contact, reply with send_message and file mail
    with move_message. Call tools with
    <tool_call>{"name": "list_messages", "arguments": {"folder": "Inbox"}}</tool_call>. When
    done, reply <answer>CODE</answer> with the code you sent. You win when the right person got
    the current code, the inbox is tidied exactly as asked, and the answer matches."""

    max_turns = 24
    skill = "Tool_Use"
    tools = [
        {"name": "list_messages", "description": "Headers (id, from, subject, date) in a folder.",
         "parameters": {"type": "object", "properties": {
             "folder": {"type": "string", "description": "Inbox, Archive or Sent"}},
             "required": ["folder"]}},
        {"name": "read_message", "description": "The full text of one message.",
         "parameters": {"type": "object", "properties": {
             "message_id": {"type": "string", "description": "e.g. M-2031"}},
             "required": ["message_id"]}},
        {"name": "lookup_contact", "description": "Email addresses of contacts matching a name.",
         "parameters": {"type": "object", "properties": {
             "name": {"type": "string", "description": "part of a name"}},
             "required": ["name"]}},
        {"name": "send_message", "description": "Send an email.",
         "parameters": {"type": "object", "properties": {
             "to": {"type": "string", "description": "one email address"},
             "subject": {"type": "string", "description": "subject line"},
             "body": {"type": "string", "description": "message text"}},
             "required": ["to", "subject", "body"]}},
        {"name": "move_message", "description": "Move a message to another folder.",
         "parameters": {"type": "object", "properties": {
             "message_id": {"type": "string", "description": "e.g. M-2031"},
             "folder": {"type": "string", "description": "Inbox or Archive"}},
             "required": ["message_id", "folder"]}},
    ]

    def reset(self, seed=None, options=None):
        """Fill the mailbox from ``seed`` and the difficulty."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.turn = 0
        self.done = False
        rng = self.rng
        d = self.difficulty
        people = rng.sample(NAMES, 5)
        self.asker, self.sender = people[0], people[1]
        self.thing = rng.choice(THINGS)
        self.code = str(rng.randint(1000, 9999))
        self.messages = {}
        mid = rng.randint(2000, 6000)
        rows = []
        day = 1
        old_codes = rng.sample([c for c in range(1000, 9999) if str(c) != self.code][:400],
                               1 if d >= 3 else 0)
        for old in old_codes:
            rows.append((self.sender, f"{self.thing}", f"Hi, the {self.thing} is {old}. "
                         "It will be rotated soon.", "Inbox"))
        rows.append((self.sender, f"New {self.thing}" if old_codes else self.thing,
                     f"Hello, the {self.thing} is now {self.code}. Please keep it private.",
                     "Inbox"))
        rows.append((self.asker, f"Need the {self.thing}",
                     f"Hi! Could you send me the current {self.thing}? Thanks.", "Inbox"))
        for _ in range(1 + d):
            who = rng.choice(people[2:])
            rows.append((who, rng.choice(CHATTER), "See you there. No codes in this one.", "Inbox"))
        self.newsletters = []
        for _ in range(0 if d == 1 else d):
            rows.append((rng.choice(NEWS), f"[Newsletter] {rng.choice(NEWS)} issue "
                         f"{rng.randint(10, 99)}", "Unsubscribe at any time.", "Inbox"))
        rng.shuffle(rows)
        for who, subject, body, folder in rows:
            mid += rng.randint(1, 30)
            day += rng.randint(0, 2)
            sender = who if " " in who else f"{who} <news@{who.lower()}.example>"
            self.messages[f"M-{mid}"] = {"message_id": f"M-{mid}", "from": sender,
                                         "subject": subject, "date": f"2024-03-{day:02d}",
                                         "body": body, "folder": folder}
            if "[Newsletter]" in subject:
                self.newsletters.append(f"M-{mid}")
        if old_codes:
            # the newest message from the sender must carry the current code
            mine = sorted((m for m in self.messages.values() if m["from"] == self.sender),
                          key=lambda m: (m["date"], m["message_id"]))
            bodies = [m["body"] for m in mine]
            bodies.sort(key=lambda b: self.code in b)
            for m, b in zip(mine, bodies, strict=True):
                m["body"] = b
                m["subject"] = f"New {self.thing}" if self.code in b else self.thing
        self.contacts = {p: email_of(p) for p in people}
        self.contacts[self.asker + " (personal)"] = email_of(self.asker).replace(
            "corp.example", "mailbox.example")
        self.sent = []
        self.start_folders = {k: v["folder"] for k, v in self.messages.items()}
        return self.render_intro(), {"turn": 0}

    def render_intro(self):
        """The task, the tools and the formats."""
        steps = [f"{self.asker} asked you for the {self.thing}. {self.sender} emailed it to you; "
                 "if several versions exist, the newest message counts. Send it to "
                 f"{self.asker}'s work address (corp.example) with the code in the body."]
        if self.newsletters:
            steps.append("Move every [Newsletter] message from the Inbox to Archive, and only "
                         "those.")
        text = "\n".join(f"{k + 1}. {s}" for k, s in enumerate(steps))
        return (
            f"Your tasks:\n{text}\n"
            "Finish with <answer>CODE</answer>, the code you sent.\n\n"
            f"Tools (JSON specs):\n{self.describe_tools()}\n\n"
            'Call a tool: <tool_call>{"name": "list_messages", "arguments": {"folder": "Inbox"}}'
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

    def message(self, value):
        """Validate a message id."""
        if not isinstance(value, str) or value.strip().upper() not in self.messages:
            raise ValueError(f"no message {value!r}; use list_messages to get ids like M-2031")
        return value.strip().upper()

    def tool_list_messages(self, folder=None):
        """List headers."""
        if not isinstance(folder, str) or folder.strip().title() not in ("Inbox", "Archive", "Sent"):
            raise ValueError(f"'folder' must be Inbox, Archive or Sent, got {folder!r}")
        name = folder.strip().title()
        if name == "Sent":
            return self.sent if self.sent else "no sent messages"
        rows = [{k: m[k] for k in ("message_id", "from", "subject", "date")}
                for m in self.messages.values() if m["folder"] == name]
        return rows if rows else f"{name} is empty"

    def tool_read_message(self, message_id=None):
        """Open a message."""
        m = self.messages[self.message(message_id)]
        return {k: m[k] for k in ("message_id", "from", "subject", "date", "body")}

    def tool_lookup_contact(self, name=None):
        """Find addresses."""
        if not isinstance(name, str) or len(name.strip()) < 2:
            raise ValueError("'name' must be at least 2 characters of a contact's name")
        rows = [{"name": k, "email": v} for k, v in self.contacts.items()
                if name.strip().lower() in k.lower()]
        return rows if rows else f"no contact matches {name!r}"

    def tool_send_message(self, to=None, subject=None, body=None):
        """Send mail."""
        if not isinstance(to, str) or "@" not in to or " " in to.strip():
            raise ValueError(f"'to' must be one email address such as a.b@corp.example, got {to!r}")
        for value, what in ((subject, "subject"), (body, "body")):
            if not isinstance(value, str) or not value.strip() or len(value) > 2000:
                raise ValueError(f"'{what}' must be a non-empty string (at most 2000 characters)")
        if len(self.sent) >= 5:
            raise ValueError("sending limit reached (5 messages per session)")
        self.sent.append({"to": to.strip().lower(), "subject": subject, "body": body})
        return f"sent to {to.strip()}"

    def tool_move_message(self, message_id=None, folder=None):
        """File a message."""
        mid = self.message(message_id)
        if not isinstance(folder, str) or folder.strip().title() not in ("Inbox", "Archive"):
            raise ValueError(f"'folder' must be Inbox or Archive, got {folder!r}")
        self.messages[mid]["folder"] = folder.strip().title()
        return f"{mid} is now in {folder.strip().title()}"

    def check(self, answer):
        """1.0 when only the asker got the current code, filing is exact, and X matches."""
        if len(self.sent) != 1:
            return 0.0
        mail = self.sent[0]
        if mail["to"] != email_of(self.asker) or self.code not in mail["body"]:
            return 0.0
        for mid, start in self.start_folders.items():
            want = "Archive" if mid in self.newsletters else start
            if self.messages[mid]["folder"] != want:
                return 0.0
        return 1.0 if str(answer).strip() == self.code else 0.0

    def solution(self):
        """Read, look up, send, file, answer."""
        replies = [call("list_messages", folder="Inbox")]
        for mid, m in sorted(self.messages.items()):
            if m["from"] == self.sender:
                replies.append(call("read_message", message_id=mid))
        replies.append(call("lookup_contact", name=self.asker))
        replies.append(call("send_message", to=email_of(self.asker), subject=self.thing,
                            body=f"Hi, the {self.thing} is {self.code}."))
        for mid in self.newsletters:
            replies.append(call("move_message", message_id=mid, folder="Archive"))
        replies.append(f"<answer>{self.code}</answer>")
        return replies

    def hint(self):
        """Approach only."""
        return ("Headers do not show bodies: open every message from the colleague who sent the "
                "code and keep the newest one. Check the contact list for the work address, "
                "and send exactly one message.")
