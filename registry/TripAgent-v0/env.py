"""TripAgent: rebook a traveller's trip with flight and hotel tools (a shipped tool-use env)."""

import json
import random

from spadegym.program import ToolEnv, read_difficulty

CITIES = ["Lisbon", "Oslo", "Prague", "Dublin", "Vienna", "Seville", "Krakow", "Tallinn",
          "Lyon", "Porto", "Bergen", "Zurich"]
PEOPLE = ["Amara Diallo", "Bruno Costa", "Chen Wei", "Dana Levi", "Emil Sato", "Fatima Noor",
          "Gustav Lind", "Hana Kim", "Ivan Petrov", "Julia Rossi"]
HOTEL_WORDS = ["Harbor", "Garden", "Central", "Royal", "Old Town", "Riverside", "Park", "Grand"]


def call(tool, **arguments):
    """Format one tool call the way the player writes it."""
    return "<tool_call>" + json.dumps({"name": tool, "arguments": arguments}) + "</tool_call>"


def need_str(value, what, example):
    """Validate a non-empty string argument."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"'{what}' must be a non-empty string, e.g. {example!r}")
    return value.strip()


def need_int(value, what, low, high):
    """Validate an integer argument in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"'{what}' must be an integer from {low} to {high}, got {value!r}")
    return value


class TripAgentEnv(ToolEnv):
    """TripAgent: rebook a business trip with travel tools.

    You are a travel agent. The first message says whose trip changed and what must be booked:
    cancel an outdated booking, book the cheapest flight that meets the traveller's conditions
    and, at higher levels, a hotel and a return flight. Tools: list_bookings, cancel_booking,
    search_flights, book_flight, search_hotels, book_hotel. Call them with
    <tool_call>{"name": "search_flights", "arguments": {...}}</tool_call>. When done, reply
    <answer>X</answer> with the total price in euros of the new bookings. You win when exactly
    the right bookings are active and the total is right."""

    max_turns = 20
    skill = "Tool_Use"
    tools = [
        {"name": "list_bookings", "description": "All bookings (active and cancelled) of a person.",
         "parameters": {"type": "object", "properties": {
             "passenger": {"type": "string", "description": "full name"}},
             "required": ["passenger"]}},
        {"name": "cancel_booking", "description": "Cancel an active booking.",
         "parameters": {"type": "object", "properties": {
             "booking_id": {"type": "string", "description": "e.g. BK-1234"}},
             "required": ["booking_id"]}},
        {"name": "search_flights",
         "description": "Flights between two cities on one date, with times, stops, "
                        "seats left and price in euros.",
         "parameters": {"type": "object", "properties": {
             "origin": {"type": "string", "description": "city name"},
             "destination": {"type": "string", "description": "city name"},
             "date": {"type": "string", "description": "YYYY-MM-DD"}},
             "required": ["origin", "destination", "date"]}},
        {"name": "book_flight", "description": "Book one seat on a flight for a passenger.",
         "parameters": {"type": "object", "properties": {
             "flight_id": {"type": "string", "description": "e.g. FL-321"},
             "passenger": {"type": "string", "description": "full name"}},
             "required": ["flight_id", "passenger"]}},
        {"name": "search_hotels",
         "description": "Hotels in a city with stars, nightly price in euros and rooms left.",
         "parameters": {"type": "object", "properties": {
             "city": {"type": "string", "description": "city name"}},
             "required": ["city"]}},
        {"name": "book_hotel", "description": "Book a room for some nights from a check-in date.",
         "parameters": {"type": "object", "properties": {
             "hotel_id": {"type": "string", "description": "e.g. HT-12"},
             "passenger": {"type": "string", "description": "full name"},
             "check_in": {"type": "string", "description": "YYYY-MM-DD"},
             "nights": {"type": "integer", "description": "1 to 14"}},
             "required": ["hotel_id", "passenger", "check_in", "nights"]}},
    ]

    def reset(self, seed=None, options=None):
        """Build the timetable, hotels and the traveller's request."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.turn = 0
        self.done = False
        rng = self.rng
        d = self.difficulty
        cities = rng.sample(CITIES, 4)
        self.home, self.dest, self.old_dest = cities[0], cities[1], cities[2]
        self.person = rng.choice(PEOPLE)
        self.day = rng.randint(3, 20)
        self.nights = rng.randint(2, 5)
        self.after_hour = rng.choice([8, 9, 10, 12, 13])
        self.before_hour = rng.choice([17, 18, 19, 20])
        self.min_stars = rng.choice([3, 4])
        self.flights = {}
        counter = rng.randint(100, 700)
        routes = [(self.home, self.dest, self.day), (self.dest, self.home, self.day + self.nights),
                  (self.home, self.old_dest, self.day), (self.home, cities[3], self.day)]
        for origin, dest, day in routes:
            prices = rng.sample(range(60, 420), 3 + d)
            for price in prices:
                counter += rng.randint(1, 9)
                dep = rng.randint(6, 21)
                self.flights[f"FL-{counter}"] = {
                    "flight_id": f"FL-{counter}", "origin": origin, "destination": dest,
                    "date": f"2024-07-{day:02d}", "depart": f"{dep:02d}:{rng.choice([0, 15, 30, 45]):02d}",
                    "arrive_hour": min(23, dep + rng.randint(1, 4)), "stops": rng.choice([0, 0, 1]),
                    "seats_left": rng.choice([0, 2, 5, 9, 9]), "price": price}
        self.hotels = {}
        for k in range(3 + d):
            hid = f"HT-{rng.randint(10, 99)}{k}"
            self.hotels[hid] = {"hotel_id": hid, "city": self.dest,
                                "name": f"{rng.choice(HOTEL_WORDS)} {self.dest} {k + 1}",
                                "stars": rng.randint(2, 5), "price_per_night": rng.randint(55, 260) + k,
                                "rooms_left": rng.choice([0, 3, 6])}
        self.want_hotel = d >= 2
        self.want_return = d >= 4
        self.out_flight = self.best_flight(self.home, self.dest, self.day, True)
        self.ret_flight = self.best_flight(self.dest, self.home, self.day + self.nights, False)
        good = [h for h in self.hotels.values() if h["stars"] >= self.min_stars and h["rooms_left"]]
        if not good:
            first = sorted(self.hotels)[0]
            self.hotels[first]["stars"] = 5
            self.hotels[first]["rooms_left"] = 2
            good = [self.hotels[first]]
        self.hotel = min(good, key=lambda h: (h["price_per_night"], h["hotel_id"]))["hotel_id"]
        self.bookings = {}
        self.old_booking = f"BK-{rng.randint(1000, 4999)}"
        old = [f for f in self.flights.values() if f["destination"] == self.old_dest]
        self.bookings[self.old_booking] = {"booking_id": self.old_booking, "passenger": self.person,
                                           "kind": "flight", "item": old[0]["flight_id"],
                                           "status": "active", "price": old[0]["price"]}
        keep = f"BK-{rng.randint(5000, 9999)}"
        self.bookings[keep] = {"booking_id": keep, "passenger": rng.choice([p for p in PEOPLE if p != self.person]), "kind": "flight",
                               "item": old[1]["flight_id"], "status": "active",
                               "price": old[1]["price"]}
        self.next_id = rng.randint(10000, 20000)
        return self.render_intro(), {"turn": 0}

    def best_flight(self, origin, dest, day, outbound):
        """Cheapest qualifying flight on a route; makes one qualify if none does."""
        rows = [f for f in self.flights.values() if f["origin"] == origin
                and f["destination"] == dest and f["date"] == f"2024-07-{day:02d}"]
        ok = [f for f in rows if self.qualifies(f, outbound)]
        if not ok:
            row = rows[0]
            row["stops"] = 0
            row["seats_left"] = 4
            if outbound:
                row["depart"] = f"{self.after_hour + 1:02d}:05"
            else:
                row["depart"] = f"{self.before_hour - 3:02d}:05"
                row["arrive_hour"] = self.before_hour - 1
            ok = [row]
        return min(ok, key=lambda f: f["price"])["flight_id"]

    def qualifies(self, flight, outbound):
        """Nonstop, seats left, and within the traveller's hours."""
        if flight["stops"] or not flight["seats_left"]:
            return False
        if outbound:
            return int(flight["depart"][:2]) >= self.after_hour
        return flight["arrive_hour"] < self.before_hour

    def render_intro(self):
        """The task, the tools and the formats."""
        date = f"2024-07-{self.day:02d}"
        steps = [f"{self.person} no longer travels to {self.old_dest}: cancel that booking.",
                 f"Book {self.person} the cheapest nonstop flight from {self.home} to {self.dest} "
                 f"on {date} that departs at or after {self.after_hour:02d}:00 and has seats."]
        if self.want_hotel:
            steps.append(f"Book the cheapest hotel in {self.dest} with at least {self.min_stars} "
                         f"stars and rooms left, checking in {date} for {self.nights} nights.")
        if self.want_return:
            steps.append(f"Book the cheapest nonstop flight back to {self.home} on the check-out "
                         f"day that arrives before {self.before_hour:02d}:00 and has seats.")
        text = "\n".join(f"{k + 1}. {s}" for k, s in enumerate(steps))
        return (
            f"Trip change request:\n{text}\n"
            "Finish with <answer>X</answer>, X = total euros of the new bookings (hotel = "
            "nightly price x nights).\n\n"
            f"Tools (JSON specs):\n{self.describe_tools()}\n\n"
            'Call a tool: <tool_call>{"name": "list_bookings", "arguments": {"passenger": '
            '"..."}}</tool_call>. Several calls per reply are fine; the answer ends the episode.\n'
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

    def person_name(self, value):
        """Validate a passenger name."""
        name = need_str(value, "passenger", "Ana Silva")
        if name.lower() not in [p.lower() for p in PEOPLE]:
            raise ValueError(f"unknown passenger {name!r}; use the full name from the request")
        return [p for p in PEOPLE if p.lower() == name.lower()][0]

    def new_booking(self, passenger, kind, item, price, extra):
        """Record a booking and return it."""
        self.next_id += 7
        bid = f"BK-{self.next_id}"
        row = {"booking_id": bid, "passenger": passenger, "kind": kind, "item": item,
               "status": "active", "price": price}
        row.update(extra)
        self.bookings[bid] = row
        return row

    def tool_list_bookings(self, passenger=None):
        """List a person's bookings."""
        name = self.person_name(passenger)
        rows = [b for b in self.bookings.values() if b["passenger"] == name]
        return rows if rows else "no bookings"

    def tool_cancel_booking(self, booking_id=None):
        """Cancel a booking."""
        bid = need_str(booking_id, "booking_id", "BK-1234").upper()
        if bid not in self.bookings:
            raise ValueError(f"no booking {bid!r}; use list_bookings")
        if self.bookings[bid]["status"] != "active":
            raise ValueError(f"booking {bid} is already cancelled")
        self.bookings[bid]["status"] = "cancelled"
        return f"booking {bid} cancelled"

    def tool_search_flights(self, origin=None, destination=None, date=None):
        """Search the timetable."""
        origin = need_str(origin, "origin", "Lisbon").title()
        destination = need_str(destination, "destination", "Oslo").title()
        date = need_str(date, "date", "2024-07-10")
        for city in (origin, destination):
            if city not in CITIES:
                raise ValueError(f"unknown city {city!r}; cities: {', '.join(CITIES)}")
        rows = [dict(f) for f in self.flights.values() if f["origin"] == origin
                and f["destination"] == destination and f["date"] == date]
        for row in rows:
            row["arrive"] = f"{row.pop('arrive_hour'):02d}:00"
        return rows if rows else f"no flights from {origin} to {destination} on {date}"

    def tool_book_flight(self, flight_id=None, passenger=None):
        """Book a seat."""
        fid = need_str(flight_id, "flight_id", "FL-321").upper()
        name = self.person_name(passenger)
        if fid not in self.flights:
            raise ValueError(f"no flight {fid!r}; use search_flights")
        flight = self.flights[fid]
        if flight["seats_left"] <= 0:
            raise ValueError(f"flight {fid} is sold out")
        flight["seats_left"] -= 1
        return self.new_booking(name, "flight", fid, flight["price"], {})

    def tool_search_hotels(self, city=None):
        """List hotels in a city."""
        city = need_str(city, "city", "Oslo").title()
        rows = [h for h in self.hotels.values() if h["city"] == city]
        return rows if rows else f"no hotels on file in {city}"

    def tool_book_hotel(self, hotel_id=None, passenger=None, check_in=None, nights=None):
        """Book a room."""
        hid = need_str(hotel_id, "hotel_id", "HT-12").upper()
        name = self.person_name(passenger)
        date = need_str(check_in, "check_in", "2024-07-10")
        count = need_int(nights, "nights", 1, 14)
        if hid not in self.hotels:
            raise ValueError(f"no hotel {hid!r}; use search_hotels")
        hotel = self.hotels[hid]
        if hotel["rooms_left"] <= 0:
            raise ValueError(f"hotel {hid} has no rooms left")
        hotel["rooms_left"] -= 1
        return self.new_booking(name, "hotel", hid, hotel["price_per_night"] * count,
                                {"check_in": date, "nights": count})

    def expected(self):
        """The set of active bookings the request asks for, and their total."""
        want = [("flight", self.out_flight, None, None)]
        total = self.flights[self.out_flight]["price"]
        if self.want_hotel:
            want.append(("hotel", self.hotel, f"2024-07-{self.day:02d}", self.nights))
            total += self.hotels[self.hotel]["price_per_night"] * self.nights
        if self.want_return:
            want.append(("flight", self.ret_flight, None, None))
            total += self.flights[self.ret_flight]["price"]
        return sorted(want, key=str), total

    def check(self, answer):
        """1.0 when exactly the requested bookings are active and the total is right."""
        active = sorted([(b["kind"], b["item"], b.get("check_in"), b.get("nights"))
                         for b in self.bookings.values()
                         if b["passenger"] == self.person and b["status"] == "active"], key=str)
        others = [b for b in self.bookings.values()
                  if b["passenger"] != self.person and b["status"] != "active"]
        want, total = self.expected()
        if active != want or others:
            return 0.0
        text = str(answer).strip().replace("€", "").replace("EUR", "").replace(",", "").strip()
        try:
            value = float(text)
        except ValueError:
            return 0.0
        return 1.0 if abs(value - total) < 0.005 else 0.0

    def solution(self):
        """Cancel, search, book, answer."""
        date = f"2024-07-{self.day:02d}"
        back = f"2024-07-{self.day + self.nights:02d}"
        replies = [call("list_bookings", passenger=self.person),
                   call("cancel_booking", booking_id=self.old_booking),
                   call("search_flights", origin=self.home, destination=self.dest, date=date),
                   call("book_flight", flight_id=self.out_flight, passenger=self.person)]
        if self.want_hotel:
            replies.append(call("search_hotels", city=self.dest))
            replies.append(call("book_hotel", hotel_id=self.hotel, passenger=self.person,
                                check_in=date, nights=self.nights))
        if self.want_return:
            replies.append(call("search_flights", origin=self.dest, destination=self.home,
                                date=back))
            replies.append(call("book_flight", flight_id=self.ret_flight, passenger=self.person))
        replies.append(f"<answer>{self.expected()[1]}</answer>")
        return replies

    def hint(self):
        """Approach only."""
        return ("Filter the search results by every condition first (stops, seats, time window, "
                "stars, rooms) and only then take the cheapest. The check-out day is the "
                "check-in day plus the nights; add the hotel as nightly price times nights.")
