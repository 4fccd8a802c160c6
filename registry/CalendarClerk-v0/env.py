"""CalendarClerk: find a common meeting slot and book it with calendar tools (shipped tool env)."""

import json
import random

from spadegym.program import ToolEnv, read_difficulty

PEOPLE = ["Alice", "Bashir", "Carmen", "Deniz", "Elif", "Femi", "Goran", "Hiro", "Ines",
          "Jakub", "Kaia", "Lorenzo"]
TITLES = ["Standup", "1:1", "Design review", "Budget sync", "Customer call", "Interview",
          "Lunch talk", "Planning", "Retro", "Code review", "Vendor demo", "Training"]
MEETINGS = ["Launch prep", "Quarterly review", "Incident postmortem", "Roadmap workshop",
            "Hiring debrief", "Partner kickoff"]
DAY_START, DAY_END = 9 * 60, 17 * 60


def call(tool, **arguments):
    """Format one tool call the way the player writes it."""
    return "<tool_call>" + json.dumps({"name": tool, "arguments": arguments}) + "</tool_call>"


def hhmm(minutes):
    """Minutes after midnight as HH:MM."""
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def parse_time(value, what):
    """Parse HH:MM into minutes after midnight, or explain the format."""
    if not isinstance(value, str) or len(value.strip()) not in (4, 5) or ":" not in value:
        raise ValueError(f"'{what}' must be a time written HH:MM, e.g. '13:30'; got {value!r}")
    hours, mins = value.strip().split(":", 1)
    if not hours.isdigit() or not mins.isdigit() or int(hours) > 23 or int(mins) > 59:
        raise ValueError(f"'{what}' = {value!r} is not a valid HH:MM time")
    return int(hours) * 60 + int(mins)


class CalendarClerkEnv(ToolEnv):
    """CalendarClerk: schedule a meeting across several calendars.

    You are a scheduling assistant. The first message asks you to cancel an event that was
    called off and then book a new meeting for several people at the earliest time on a given
    day, between 09:00 and 17:00, when all of them are free (starts on the hour or half hour).
    Tools: list_events, delete_event, create_event. Call them with
    <tool_call>{"name": "list_events", "arguments": {"person": "...", "date": "..."}}
    </tool_call>. When done, reply <answer>HH:MM</answer> with the meeting's start time. You win
    when the calendars end exactly as requested."""

    max_turns = 16
    skill = "Tool_Use"
    tools = [
        {"name": "list_events", "description": "A person's events on one date, by start time.",
         "parameters": {"type": "object", "properties": {
             "person": {"type": "string", "description": "first name"},
             "date": {"type": "string", "description": "YYYY-MM-DD"}},
             "required": ["person", "date"]}},
        {"name": "delete_event", "description": "Delete an event from every attendee's calendar.",
         "parameters": {"type": "object", "properties": {
             "event_id": {"type": "string", "description": "e.g. EV-123"}},
             "required": ["event_id"]}},
        {"name": "create_event",
         "description": "Create an event for the listed attendees; reports any conflicts.",
         "parameters": {"type": "object", "properties": {
             "title": {"type": "string", "description": "event title"},
             "date": {"type": "string", "description": "YYYY-MM-DD"},
             "start": {"type": "string", "description": "HH:MM"},
             "end": {"type": "string", "description": "HH:MM, after start"},
             "attendees": {"type": "array", "items": {"type": "string"},
                           "description": "first names"}},
             "required": ["title", "date", "start", "end", "attendees"]}},
    ]

    def reset(self, seed=None, options=None):
        """Fill the calendars and pick the meeting to schedule."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.turn = 0
        self.done = False
        rng = self.rng
        d = self.difficulty
        self.date = f"2024-09-{rng.randint(2, 27):02d}"
        self.other_date = f"2024-09-{rng.randint(2, 27):02d}"
        self.people = rng.sample(PEOPLE, 1 + d)
        self.duration = rng.choice([30, 60, 60, 90])
        self.title = rng.choice(MEETINGS)
        for _ in range(50):
            self.build_calendars(rng)
            self.slot = self.earliest(self.events_without(self.cancel_id))
            before = self.earliest(self.events)
            # the cancellation must matter, or the player could ignore it
            if self.slot is not None and before != self.slot:
                break
        if self.slot is None:
            # a crowded day: free the last window so that the request stays satisfiable
            low = DAY_END - self.duration
            for eid in list(self.events):
                e = self.events[eid]
                if eid != self.cancel_id and e["date"] == self.date and e["end"] > low:
                    del self.events[eid]
            self.start_events = json.loads(json.dumps(self.events))
            self.slot = self.earliest(self.events_without(self.cancel_id))
        return self.render_intro(), {"turn": 0}

    def build_calendars(self, rng):
        """Random busy blocks for everyone, and one event to cancel."""
        self.events = {}
        counter = rng.randint(100, 800)
        for person in self.people + rng.sample([p for p in PEOPLE if p not in self.people], 2):
            cursor = DAY_START + rng.choice([0, 0, 30, 60])
            while cursor < DAY_END - 30:
                length = rng.choice([30, 30, 60, 60, 90, 120])
                if rng.random() < 0.6 - 0.05 * len(self.people):
                    counter += rng.randint(1, 9)
                    eid = f"EV-{counter}"
                    self.events[eid] = {"event_id": eid, "title": rng.choice(TITLES),
                                        "date": self.date, "start": cursor,
                                        "end": min(DAY_END, cursor + length),
                                        "attendees": [person]}
                cursor += length + rng.choice([0, 30])
            counter += 1
            self.events[f"EV-{counter}"] = {"event_id": f"EV-{counter}", "title": "Offsite",
                                            "date": self.other_date, "start": DAY_START,
                                            "end": DAY_END, "attendees": [person]}
        mine = [e for e in self.events.values()
                if e["date"] == self.date and e["attendees"][0] in self.people]
        chosen = rng.choice(mine)
        self.cancel_id = chosen["event_id"]
        self.cancel_owner = chosen["attendees"][0]
        self.cancel_title = chosen["title"]
        chosen["title"] = chosen["title"] + " (called off)"
        self.cancel_title = chosen["title"]
        self.start_events = json.loads(json.dumps(self.events))

    def events_without(self, eid):
        """The events minus one."""
        return {k: v for k, v in self.events.items() if k != eid}

    def earliest(self, events):
        """The earliest half-hour start when every attendee is free, or None."""
        start = DAY_START
        while start + self.duration <= DAY_END:
            end = start + self.duration
            clash = any(e["date"] == self.date and e["start"] < end and start < e["end"]
                        and any(p in self.people for p in e["attendees"])
                        for e in events.values())
            if not clash:
                return start
            start += 30
        return None

    def render_intro(self):
        """The task, the tools and the formats."""
        names = ", ".join(self.people)
        return (
            f"Request: {self.cancel_owner}'s event \"{self.cancel_title}\" on {self.date} is "
            "cancelled; delete it. Then book a "
            f"{self.duration}-minute meeting titled \"{self.title}\" on {self.date} for "
            f"{names}, at the earliest start (on :00 or :30) between 09:00 and 17:00 when all "
            "of them are free. Book nothing else.\n"
            "Finish with <answer>HH:MM</answer>, the meeting's start time.\n\n"
            f"Tools (JSON specs):\n{self.describe_tools()}\n\n"
            'Call a tool: <tool_call>{"name": "list_events", "arguments": {"person": "Alice", '
            '"date": "2024-09-05"}}</tool_call>. Several calls per reply are fine; the answer '
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

    def known(self, value):
        """Validate a person's first name."""
        if not isinstance(value, str) or value.strip().title() not in PEOPLE:
            raise ValueError(f"unknown person {value!r}; use a first name such as 'Alice'")
        return value.strip().title()

    def tool_list_events(self, person=None, date=None):
        """Show a person's day."""
        name = self.known(person)
        if not isinstance(date, str) or len(date.strip()) != 10:
            raise ValueError(f"'date' must be YYYY-MM-DD, got {date!r}")
        rows = [{"event_id": e["event_id"], "title": e["title"], "start": hhmm(e["start"]),
                 "end": hhmm(e["end"]), "attendees": e["attendees"]}
                for e in sorted(self.events.values(), key=lambda e: (e["start"], e["event_id"]))
                if name in e["attendees"] and e["date"] == date.strip()]
        return rows if rows else f"{name} has no events on {date.strip()}"

    def tool_delete_event(self, event_id=None):
        """Delete an event."""
        if not isinstance(event_id, str) or event_id.strip().upper() not in self.events:
            raise ValueError(f"no event {event_id!r}; use list_events to find event ids")
        del self.events[event_id.strip().upper()]
        return f"deleted {event_id.strip().upper()}"

    def tool_create_event(self, title=None, date=None, start=None, end=None, attendees=None):
        """Create an event."""
        if not isinstance(title, str) or not title.strip() or len(title) > 80:
            raise ValueError("'title' must be a non-empty string of at most 80 characters")
        if not isinstance(date, str) or len(date.strip()) != 10:
            raise ValueError(f"'date' must be YYYY-MM-DD, got {date!r}")
        begin = parse_time(start, "start")
        finish = parse_time(end, "end")
        if finish <= begin:
            raise ValueError(f"'end' ({end}) must be after 'start' ({start})")
        if not isinstance(attendees, list) or not attendees or len(attendees) > 12:
            raise ValueError("'attendees' must be a non-empty list of first names")
        names = sorted({self.known(a) for a in attendees})
        eid = f"EV-{900 + len(self.events) + self.turn * 50}"
        while eid in self.events:
            eid = eid + "1"
        self.events[eid] = {"event_id": eid, "title": title.strip(), "date": date.strip(),
                            "start": begin, "end": finish, "attendees": names}
        clashes = [e["event_id"] for e in self.events.values() if e["event_id"] != eid
                   and e["date"] == date.strip() and e["start"] < finish and begin < e["end"]
                   and any(p in names for p in e["attendees"])]
        result = {"event_id": eid, "created": True}
        if clashes:
            result["conflicts_with"] = clashes
        return result

    def check(self, answer):
        """1.0 when exactly the cancellation and the right meeting happened."""
        expected = {k: v for k, v in self.start_events.items() if k != self.cancel_id}
        new = {k: v for k, v in self.events.items() if k not in self.start_events}
        kept = {k: v for k, v in self.events.items() if k in self.start_events}
        if kept != expected or len(new) != 1:
            return 0.0
        event = list(new.values())[0]
        if (event["title"].lower() != self.title.lower() or event["date"] != self.date
                or event["start"] != self.slot or event["end"] != self.slot + self.duration
                or event["attendees"] != sorted(self.people)):
            return 0.0
        try:
            said = parse_time(str(answer).strip(), "answer")
        except ValueError:
            return 0.0
        return 1.0 if said == self.slot else 0.0

    def solution(self):
        """Read every calendar, delete, book, answer."""
        replies = [call("list_events", person=p, date=self.date) for p in self.people]
        replies.append(call("delete_event", event_id=self.cancel_id))
        replies.append(call("create_event", title=self.title, date=self.date,
                            start=hhmm(self.slot), end=hhmm(self.slot + self.duration),
                            attendees=list(self.people)))
        replies.append(f"<answer>{hhmm(self.slot)}</answer>")
        return replies

    def hint(self):
        """Approach only."""
        return ("Delete the called-off event before you look for the slot, since it frees "
                "time. Merge everyone's busy intervals for that date and walk the half-hour "
                "starts from 09:00 until the whole meeting fits.")
