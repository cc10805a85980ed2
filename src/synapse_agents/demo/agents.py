"""The example agents ``synapse serve --demo`` runs, each on the offline :class:`DemoModel`.

Each one shows a feature the workbench must display: function tools, a stateless agent,
structured output, a failing tool, a nested agent run, dependencies from a factory, a model
fallback and a native (provider) tool. They are ordinary module-level ``pydantic_ai.Agent``
instances; importing this module only builds them.

The tools that need no run dependencies are also marked ``@synapse_agents.tool``, so the registry
offers them to configured agents (tags ``support``, ``orders``, ``inventory``, ``delegation``);
``deps_agent``'s tools read its ``AccountDeps`` and are not offered.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field
from pydantic_ai import Agent, ModelRetry, RunContext
from pydantic_ai.capabilities import WebSearch
from pydantic_ai.models.fallback import FallbackModel

from ..tools import tool
from ._fixtures import ORDERS, TICKETS, AccountDeps, Article, Order, Ticket, sample_account, search_articles
from .model import DemoModel

__all__ = [
    'AccountDeps',
    'TriageResult',
    'deps_agent',
    'fallback_agent',
    'flaky_agent',
    'make_account_deps',
    'orchestrator',
    'research_agent',
    'structured_agent',
    'summariser',
    'support_agent',
]

# --- support_agent: three function tools over fake data --------------------------------------

support_agent = Agent(
    DemoModel(),
    name='support_agent',
    description='Customer support for a small online shop: orders, help articles and tickets.',
    instructions=(
        'You are the support assistant of a small online shop. Look orders up before answering '
        'questions about them, cite help-centre articles, and open a ticket when a human must act.'
    ),
    metadata={
        'synapse.suggestions': [
            'Where is order A-1001?',
            'Use all your tools',
            'What did I ask you before?',
            'Rate limit me, please',
            'Fail mid stream',
        ]
    },
)


@tool(tags=['support', 'orders'])
@support_agent.tool_plain
def lookup_order(order_id: str) -> Order:
    """Look up an order by its id (such as A-1001) and return its status, items and delivery estimate.

    Args:
        order_id: The order id, as printed on the confirmation email.
    """
    order = ORDERS.get(order_id.strip().lstrip('#').upper())
    if order is None:
        known = ', '.join(ORDERS)
        raise ModelRetry(f'There is no order {order_id!r}. Known orders: {known}.')
    return order


@tool(tags=['support'])
@support_agent.tool_plain
def search_knowledge_base(query: str, limit: int = 3) -> list[Article]:
    """Search the help-centre knowledge base for articles about a topic (refunds, shipping, passwords...).

    Args:
        query: Words to search for.
        limit: The most articles to return.
    """
    return search_articles(query, limit)


@tool(tags=['support'])
@support_agent.tool_plain
def create_ticket(subject: str, priority: Literal['low', 'normal', 'high'] = 'normal') -> Ticket:
    """Open a support ticket so a human agent follows up on a problem.

    Args:
        subject: A one-line description of the problem.
        priority: How urgent the problem is.
    """
    ticket: Ticket = {
        'ticket_id': f'T-{len(TICKETS) + 1:04d}',
        'subject': subject,
        'priority': priority,
        'status': 'open',
    }
    TICKETS.append(ticket)
    return ticket


# --- summariser: a stateless agent -----------------------------------------------------------

summariser = Agent(
    DemoModel(),
    name='summariser',
    description='Summarises the text it is given. Stateless: every message starts from scratch.',
    instructions='Summarise the text you are given in two sentences at most, then list its key terms.',
    metadata={
        'synapse.stateless': True,
        'synapse.suggestions': [
            'Summarise this: pydantic-ai agents are composable, typed and testable.',
            'What did I say?',
        ],
    },
)

# --- structured_agent: a pydantic output type with nested fields and a list --------------------


class Customer(BaseModel):
    """Who wrote the message, when they say so."""

    name: str | None = Field(default=None, description="The customer's name, if given.")
    email: str | None = Field(default=None, description="The customer's email address, if given.")


class ActionItem(BaseModel):
    """One thing the support team should do."""

    description: str = Field(description='What to do.')
    due_in_days: int = Field(ge=0, le=30, description='Days until it is due.')


class TriageResult(BaseModel):
    """A support message, sorted for the right team."""

    category: Literal['billing', 'technical', 'shipping', 'account', 'other']
    priority: Literal['low', 'normal', 'high', 'urgent']
    summary: str = Field(max_length=300, description='The message in one sentence.')
    customer: Customer
    order_ids: list[str] = Field(description='Order ids the message mentions.')
    actions: list[ActionItem] = Field(min_length=1, description='Follow-up actions, most urgent first.')
    needs_human: bool = Field(description='Whether a person must reply.')
    confidence: float = Field(ge=0, le=1, description='How sure the triage is.')


structured_agent = Agent(
    DemoModel(),
    name='structured_agent',
    description='Triages a support message into a structured TriageResult.',
    instructions='Triage the customer message: category, priority, a one-sentence summary and actions.',
    output_type=TriageResult,
    metadata={
        'synapse.suggestions': [
            'My keyboard arrived broken and I want a refund.',
            'Everything is fine, just saying thanks!',
        ]
    },
)

# --- flaky_agent: a tool that raises ------------------------------------------------------------

flaky_agent = Agent(
    DemoModel(),
    name='flaky_agent',
    description='Checks stock levels through an inventory service that is down: its tool always fails.',
    instructions='Answer stock questions by checking the inventory service.',
    metadata={'synapse.suggestions': ['How many KB-87 keyboards are in stock?']},
)


@tool(tags=['inventory'])
@flaky_agent.tool_plain
def check_inventory(sku: str) -> dict[str, Any]:
    """Check how many units of a product (by SKU, such as KB-87) are in stock.

    Args:
        sku: The product's stock-keeping unit.
    """
    # The demo's inventory service is always down, so the workbench can show a failing tool call.
    raise RuntimeError('inventory service unreachable')


# --- orchestrator: delegates to another agent from a tool ---------------------------------------

orchestrator = Agent(
    DemoModel(),
    name='orchestrator',
    description='Delegates summarising to the summariser agent (a nested agent run).',
    instructions='When asked about a text, delegate the summary to the summariser tool and report it.',
    metadata={'synapse.suggestions': ['Summarise this text: pydantic-ai agents are composable.']},
)


@tool(tags=['delegation'])
@orchestrator.tool
async def delegate_to_summariser(ctx: RunContext[object], text: str) -> str:
    """Ask the summariser agent for a summary of a text.

    Args:
        text: The text to summarise.
    """
    result = await summariser.run(f'Summarise this: {text}', usage=ctx.usage)
    return result.output


# --- deps_agent: tools that read ctx.deps, built by a deps factory ------------------------------


def make_account_deps() -> AccountDeps:
    """The deps factory Synapse calls for ``deps_agent`` (named in its metadata)."""
    return sample_account()


deps_agent = Agent(
    DemoModel(),
    name='deps_agent',
    description='Answers questions about the signed-in account; its tools read the run dependencies.',
    deps_type=AccountDeps,
    metadata={
        'synapse.deps_factory': 'synapse_agents.demo.agents:make_account_deps',
        'synapse.suggestions': ['List my open invoices.'],
    },
)


@deps_agent.instructions
def account_instructions(ctx: RunContext[AccountDeps]) -> str:
    """Instructions naming the tenant the run is for."""
    return f'You help the team at {ctx.deps.company} with their {ctx.deps.plan} plan account.'


@deps_agent.tool
def get_account_summary(ctx: RunContext[AccountDeps]) -> dict[str, Any]:
    """Summarise the signed-in account: company, plan and seats in use."""
    deps = ctx.deps
    return {
        'account_id': deps.account_id,
        'company': deps.company,
        'plan': deps.plan,
        'seats': f'{deps.seats_used} of {deps.seats_total} used',
    }


@deps_agent.tool
def list_invoices(
    ctx: RunContext[AccountDeps], status: Literal['paid', 'open', 'all'] = 'all'
) -> list[dict[str, Any]]:
    """List the account's invoices and billing history, optionally only paid or open ones.

    Args:
        status: Which invoices to list.
    """
    return [
        {'number': invoice.number, 'amount_eur': invoice.amount_eur, 'status': invoice.status}
        for invoice in ctx.deps.invoices
        if status == 'all' or invoice.status == status
    ]


# --- fallback_agent: a primary that is down, a fallback that answers ----------------------------

fallback_agent = Agent(
    FallbackModel(DemoModel.always_failing(503), DemoModel()),
    name='fallback_agent',
    description='Runs on a FallbackModel whose primary always fails with a 503, so the fallback answers.',
    instructions='Answer briefly.',
    metadata={'synapse.suggestions': ['Hello! Which model answered?']},
)

# --- research_agent: a native (provider-side) web search ---------------------------------------

research_agent = Agent(
    DemoModel(),
    name='research_agent',
    description='Searches the web with a native WebSearchTool (answered with canned offline results).',
    instructions='Search the web before answering and cite your sources.',
    capabilities=[WebSearch(local=False)],
    metadata={'synapse.suggestions': ['Search the web for the latest news on pydantic-ai.']},
)
