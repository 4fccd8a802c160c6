import json
import random

from spadegym.program import ToolEnv, read_difficulty

NAMES = "alder ash birch cedar elm fir hazel larch maple oak pine rowan spruce walnut willow yew".split()


class BankSettlementEnv(ToolEnv):
    """Settle the overdrawn accounts of a small bank.

    Some accounts are overdrawn. Use the bank's tools to find the balances and move money
    between accounts until no balance is negative, then report the bank's total holdings with
    <answer>N</answer>. Tools are called with
    <tool_call>{"name": "...", "arguments": {...}}</tool_call>, several per reply if you like.
    """

    max_turns = 10
    skill = "Mathematical_Reasoning"
    tools = [
        {
            "name": "audit",
            "description": "The names of the overdrawn accounts (not their balances).",
            "parameters": {"type": "object", "properties": {}},
        },
        {
            "name": "get_balance",
            "description": "The balance of one account, in whole coins (negative if overdrawn).",
            "parameters": {
                "type": "object",
                "properties": {"account": {"type": "string"}},
                "required": ["account"],
            },
        },
        {
            "name": "transfer",
            "description": (
                "Move a positive whole number of coins from one account to another. "
                "The source may not go below zero."
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    "source": {"type": "string"},
                    "target": {"type": "string"},
                    "amount": {"type": "integer"},
                },
                "required": ["source", "target", "amount"],
            },
        },
    ]

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        difficulty = read_difficulty(options, default=1)
        count = 3 + difficulty
        overdrawn = 1 + difficulty // 2
        names = self.rng.sample(NAMES, count)
        self.balances = {}
        for i, name in enumerate(names):
            if i < overdrawn:
                self.balances[name] = -self.rng.randint(5, 20 + 10 * difficulty)
            else:
                self.balances[name] = self.rng.randint(0, 40 + 10 * difficulty)
        # The richest account alone must be able to cover every debt, so a plan always exists.
        debt = -sum(v for v in self.balances.values() if v < 0)
        richest = names[-1]
        self.balances[richest] = self.balances[richest] + debt + self.rng.randint(1, 30)
        shuffled = list(names)
        self.rng.shuffle(shuffled)
        self.order = shuffled
        self.transfers = 0
        observation = (
            f"The bank has {count} accounts: {', '.join(self.order)}. Some are overdrawn. "
            "Make every balance zero or more by moving money between accounts, then answer "
            "with the bank's total holdings (the sum of all balances) as <answer>N</answer>. "
            "The answer ends the episode.\n"
            'Call tools with <tool_call>{"name": "...", "arguments": {...}}</tool_call>; '
            "a reply may hold several calls, which run in order. Tools:\n" + self.describe_tools()
        )
        return observation, {"accounts": count}

    def tool_audit(self):
        return [name for name in self.order if self.balances[name] < 0]

    def tool_get_balance(self, account):
        if account not in self.balances:
            raise ValueError(f"no account named '{account}'")
        return self.balances[account]

    def tool_transfer(self, source, target, amount):
        for name in (source, target):
            if name not in self.balances:
                raise ValueError(f"no account named '{name}'")
        if source == target:
            raise ValueError("source and target must differ")
        if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
            raise ValueError("amount must be a positive whole number")
        if self.balances[source] - amount < 0:
            raise ValueError(f"{source} holds {self.balances[source]}, less than {amount}")
        self.balances[source] = self.balances[source] - amount
        self.balances[target] = self.balances[target] + amount
        self.transfers += 1
        return {"source": self.balances[source], "target": self.balances[target]}

    def check(self, answer):
        settled = all(v >= 0 for v in self.balances.values())
        total = sum(self.balances.values())
        return 1.0 if settled and answer.strip() == str(total) else 0.0

    def solution(self):
        balances = dict(self.balances)
        calls = []
        for name in self.order:
            if balances[name] < 0:
                source = max(self.order, key=lambda n: balances[n])
                amount = -balances[name]
                balances[source] = balances[source] - amount
                balances[name] = 0
                arguments = {"source": source, "target": name, "amount": amount}
                call = {"name": "transfer", "arguments": arguments}
                calls.append("<tool_call>" + json.dumps(call) + "</tool_call>")
        return ["".join(calls), f"<answer>{sum(balances.values())}</answer>"]

    def hint(self):
        return (
            "Read every balance first: transfers never change the total, and one account holds "
            "enough to cover all the debts."
        )
