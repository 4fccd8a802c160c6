"""TableHost: move a dinner booking with restaurant reservation tools (a shipped tool env)."""

import json
import random

from spadegym.program import ToolEnv, read_difficulty

CUISINES = ["Thai", "Italian", "Ethiopian", "Mexican", "Japanese", "Lebanese", "Georgian"]
HOODS = ["Old Port", "Riverside", "Hilltop", "Market Row", "University"]
WORDS = ["Saffron", "Olive", "Ember", "Lotus", "Copper", "Juniper", "Fig", "Basil", "Koi",
         "Cedar", "Pepper", "Harvest"]
GUESTS = ["Noor Hamid", "Pablo Ortiz", "Greta Vogel", "Sanjay Rao", "Eleni Pappas", "Max Huber"]


def call(tool, **arguments):
    """Format one tool call the way the player writes it."""
    return "<tool_call>" + json.dumps({"name": tool, "arguments": arguments}) + "</tool_call>"


class TableHostEnv(ToolEnv):
    """TableHost: rebook a dinner for a bigger party.

    You are a concierge. The first message says whose party grew, which old reservation to
    cancel, and the conditions of the new table (cuisine, time window, party size and, at
    higher levels, neighbourhoods to avoid). Among the restaurants that can seat the party in
    the window, the best-rated wins; book its earliest fitting slot. Tools: list_reservations,
    cancel_reservation, search_restaurants, get_availability, make_reservation. Call them with
    <tool_call>{"name": "search_restaurants", "arguments": {"cuisine": "Thai"}}</tool_call>.
    When done, reply <answer>ID</answer> with the new reservation id. You win when only the
    right reservation is active for the guest and the id matches."""

    max_turns = 20
    skill = "Tool_Use"
    tools = [
        {"name": "list_reservations", "description": "A guest's reservations.",
         "parameters": {"type": "object", "properties": {
             "guest": {"type": "string", "description": "full name"}},
             "required": ["guest"]}},
        {"name": "cancel_reservation", "description": "Cancel a reservation.",
         "parameters": {"type": "object", "properties": {
             "reservation_id": {"type": "string", "description": "e.g. RS-4410"}},
             "required": ["reservation_id"]}},
        {"name": "search_restaurants",
         "description": "Restaurants of a cuisine: id, name, neighbourhood, rating.",
         "parameters": {"type": "object", "properties": {
             "cuisine": {"type": "string", "description": "e.g. Thai"}},
             "required": ["cuisine"]}},
        {"name": "get_availability",
         "description": "Free tables of a restaurant on a date: time and the largest party "
                        "each can seat.",
         "parameters": {"type": "object", "properties": {
             "restaurant_id": {"type": "string", "description": "e.g. RT-12"},
             "date": {"type": "string", "description": "YYYY-MM-DD"}},
             "required": ["restaurant_id", "date"]}},
        {"name": "make_reservation", "description": "Book a free table.",
         "parameters": {"type": "object", "properties": {
             "restaurant_id": {"type": "string", "description": "e.g. RT-12"},
             "date": {"type": "string", "description": "YYYY-MM-DD"},
             "time": {"type": "string", "description": "HH:MM, one of the free times"},
             "party_size": {"type": "integer", "description": "1 to 20"},
             "guest": {"type": "string", "description": "full name"}},
             "required": ["restaurant_id", "date", "time", "party_size", "guest"]}},
    ]

    def reset(self, seed=None, options=None):
        """Build restaurants, availability and the request."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.turn = 0
        self.done = False
        rng = self.rng
        d = self.difficulty
        self.cuisine = rng.choice(CUISINES)
        self.guest = rng.choice(GUESTS)
        self.date = f"2024-10-{rng.randint(1, 28):02d}"
        self.party = rng.randint(4, 9)
        self.window = (rng.choice([17, 18]), rng.choice([20, 21]))
        self.avoid = rng.sample(HOODS, 1 + (d >= 5)) if d >= 3 else []
        self.places = {}
        names = rng.sample(WORDS, 3 + d + 2)
        for k, word in enumerate(names):
            rid = f"RT-{rng.randint(10, 99)}{k}"
            cuisine = self.cuisine if k < 3 + d else rng.choice(CUISINES)
            slots = {}
            for hour in range(17, 23):
                for minute in (0, 30):
                    if rng.random() < 0.35:
                        slots[f"{hour:02d}:{minute:02d}"] = rng.choice([2, 4, 6, 8, 10])
            self.places[rid] = {"restaurant_id": rid, "name": f"{word} {cuisine}",
                                "cuisine": cuisine, "neighbourhood": rng.choice(HOODS),
                                "rating": round(3.0 + rng.randint(0, 20) / 10, 1), "slots": slots}
        self.pick = self.best()
        if self.pick is None:
            rid = sorted(r for r, p in self.places.items() if p["cuisine"] == self.cuisine)[0]
            place = self.places[rid]
            place["neighbourhood"] = [h for h in HOODS if h not in self.avoid][0]
            place["slots"][f"{self.window[0]:02d}:30"] = 10
            self.pick = self.best()
        old_rid = [r for r, p in self.places.items() if r != self.pick[0]][0]
        self.reservations = {}
        self.old = f"RS-{rng.randint(1000, 4999)}"
        self.reservations[self.old] = {"reservation_id": self.old, "guest": self.guest,
                                       "restaurant_id": old_rid, "date": self.date,
                                       "time": "19:00", "party_size": rng.randint(2, 3),
                                       "status": "active"}
        self.next_id = rng.randint(5000, 9000)
        self.first_new = f"RS-{self.next_id + 13}"
        self.start_slots = json.loads(json.dumps({r: p["slots"] for r, p in self.places.items()}))
        return self.render_intro(), {"turn": 0}

    def fits(self, place):
        """Times in the window where the party fits, earliest first."""
        if place["cuisine"] != self.cuisine or place["neighbourhood"] in self.avoid:
            return []
        low, high = f"{self.window[0]:02d}:00", f"{self.window[1]:02d}:00"
        return sorted(t for t, seats in place["slots"].items()
                      if low <= t <= high and seats >= self.party)

    def best(self):
        """(restaurant id, time) of the best-rated fitting place, or None."""
        good = [(p["rating"], r) for r, p in self.places.items() if self.fits(p)]
        if not good:
            return None
        top = max(rating for rating, _ in good)
        rid = sorted(r for rating, r in good if rating == top)[0]
        return rid, self.fits(self.places[rid])[0]

    def render_intro(self):
        """The task, the tools and the formats."""
        avoid = ""
        if self.avoid:
            avoid = f" The guests refuse to eat in {' or '.join(self.avoid)}."
        return (
            f"Request: {self.guest}'s dinner on {self.date} is now for {self.party} people, and "
            "the current reservation cannot seat them: cancel it. Book a table for the party at "
            f"the best-rated {self.cuisine} restaurant that has a table for {self.party} between "
            f"{self.window[0]:02d}:00 and {self.window[1]:02d}:00 (inclusive) that evening "
            f"(ties: lower restaurant id), at its earliest such time.{avoid}\n"
            "Finish with <answer>ID</answer>, the new reservation id.\n\n"
            f"Tools (JSON specs):\n{self.describe_tools()}\n\n"
            'Call a tool: <tool_call>{"name": "search_restaurants", "arguments": {"cuisine": '
            '"Thai"}}</tool_call>. Several calls per reply are fine; the answer ends the '
            f"episode.\nTurn 0 of {self.max_turns}."
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

    def place(self, value):
        """Validate a restaurant id."""
        if not isinstance(value, str) or value.strip().upper() not in self.places:
            raise ValueError(f"no restaurant {value!r}; use search_restaurants to get ids")
        return self.places[value.strip().upper()]

    def tool_list_reservations(self, guest=None):
        """A guest's reservations."""
        if not isinstance(guest, str) or not guest.strip():
            raise ValueError("'guest' must be the guest's full name")
        rows = [r for r in self.reservations.values()
                if r["guest"].lower() == guest.strip().lower()]
        return rows if rows else f"no reservations for {guest!r}"

    def tool_cancel_reservation(self, reservation_id=None):
        """Cancel one."""
        if not isinstance(reservation_id, str) or reservation_id.strip().upper() not in self.reservations:
            raise ValueError(f"no reservation {reservation_id!r}; use list_reservations")
        row = self.reservations[reservation_id.strip().upper()]
        if row["status"] != "active":
            raise ValueError(f"{row['reservation_id']} is already cancelled")
        row["status"] = "cancelled"
        return f"{row['reservation_id']} cancelled"

    def tool_search_restaurants(self, cuisine=None):
        """Restaurants of a cuisine."""
        if not isinstance(cuisine, str) or cuisine.strip().title() not in CUISINES:
            raise ValueError(f"'cuisine' must be one of {', '.join(CUISINES)}, got {cuisine!r}")
        return [{k: p[k] for k in ("restaurant_id", "name", "neighbourhood", "rating")}
                for p in self.places.values() if p["cuisine"] == cuisine.strip().title()]

    def tool_get_availability(self, restaurant_id=None, date=None):
        """Free tables on a date."""
        p = self.place(restaurant_id)
        if not isinstance(date, str) or len(date.strip()) != 10:
            raise ValueError(f"'date' must be YYYY-MM-DD, got {date!r}")
        if date.strip() != self.date:
            return f"fully booked on {date.strip()}"
        rows = [{"time": t, "max_party": s} for t, s in sorted(p["slots"].items())]
        return rows if rows else "no free tables that evening"

    def tool_make_reservation(self, restaurant_id=None, date=None, time=None, party_size=None,
                              guest=None):
        """Book a table."""
        p = self.place(restaurant_id)
        if not isinstance(date, str) or date.strip() != self.date:
            raise ValueError(f"no availability data for date {date!r}; use get_availability")
        if not isinstance(time, str) or time.strip() not in p["slots"]:
            raise ValueError(f"{time!r} is not a free time at {p['restaurant_id']}")
        if isinstance(party_size, bool) or not isinstance(party_size, int) or not 1 <= party_size <= 20:
            raise ValueError(f"'party_size' must be an integer from 1 to 20, got {party_size!r}")
        if party_size > p["slots"][time.strip()]:
            raise ValueError(f"the {time.strip()} table seats at most {p['slots'][time.strip()]}")
        if not isinstance(guest, str) or guest.strip().title() not in GUESTS:
            raise ValueError(f"unknown guest {guest!r}; use the full name from the request")
        del p["slots"][time.strip()]
        self.next_id += 13
        rid = f"RS-{self.next_id}"
        self.reservations[rid] = {"reservation_id": rid, "guest": guest.strip().title(),
                                  "restaurant_id": p["restaurant_id"], "date": self.date,
                                  "time": time.strip(), "party_size": party_size,
                                  "status": "active"}
        return self.reservations[rid]

    def check(self, answer):
        """1.0 when the guest holds exactly the right active booking and the id matches."""
        active = [r for r in self.reservations.values() if r["status"] == "active"]
        if len(active) != 1 or self.reservations[self.old]["status"] != "cancelled":
            return 0.0
        row = active[0]
        if (row["guest"] != self.guest or row["restaurant_id"] != self.pick[0]
                or row["time"] != self.pick[1] or row["party_size"] != self.party):
            return 0.0
        return 1.0 if str(answer).strip().upper() == row["reservation_id"] else 0.0

    def solution(self):
        """Cancel, compare the candidates, book, answer."""
        replies = [call("list_reservations", guest=self.guest),
                   call("cancel_reservation", reservation_id=self.old),
                   call("search_restaurants", cuisine=self.cuisine)]
        for rid, p in sorted(self.places.items()):
            if p["cuisine"] == self.cuisine and p["neighbourhood"] not in self.avoid:
                replies.append(call("get_availability", restaurant_id=rid, date=self.date))
        replies.append(call("make_reservation", restaurant_id=self.pick[0], date=self.date,
                            time=self.pick[1], party_size=self.party, guest=self.guest))
        replies.append(f"<answer>{self.first_new}</answer>")
        return replies

    def hint(self):
        """Approach only."""
        return ("Rule out restaurants by neighbourhood first, then check availability for each "
                "remaining one: a table counts only if it is inside the window and seats the "
                "whole party. Rank the survivors by rating and take the earliest fitting time.")
