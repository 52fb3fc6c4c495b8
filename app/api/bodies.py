"""Request bodies: decoded as JSON (anything else is a 400), validated strictly (a 422)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import wraps
from typing import Any, ClassVar, TypeVar, cast, get_args

from pydantic import BaseModel, ValidationError
from quart import Request, request
from quart_schema import RequestSchemaValidationError, document_querystring, document_request

from app.api.errors import HTTP_DETAILS
from app.errors import Invalid, Unparseable
from app.models.memories import BranchQuery

Body = TypeVar("Body", bound=BaseModel)
JSON_WHITESPACE = b" \t\r\n"  # what JSON allows around a value; anything else is a body
Handler = TypeVar("Handler", bound=Callable[..., Any])


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


class StrictJson:
    """JSON as RFC 8259 has it: Python's json also reads NaN, Infinity and -Infinity, which no
    JSON parser reads back (a memory storing one would spoil every listing of it)."""

    @staticmethod
    def loads(text: str | bytes) -> Any:
        return json.loads(text, parse_constant=_not_json)


class JsonRequest(Request):
    """Quart's request, where any body that cannot be decoded as JSON is a 400, and where the
    routes of `larger_bodies` may carry bodies over MAX_CONTENT_LENGTH, up to their own limit.

    Quart turns only json's ValueError into a 400 (BadRequest): a body that is not UTF-8 fails
    to decode before json runs, and deep nesting makes json raise RecursionError.
    """

    larger_bodies: ClassVar[Mapping[tuple[str, str], int]] = {}  # (method, path) -> bytes

    def __init__(self, method: str, scheme: str, path: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(method, scheme, path, *args, **kwargs)
        # Quart fixes a body's limit when it creates the request, before any route runs.
        limit = self.larger_bodies.get((method, path))
        if limit is not None:
            self.body = self.body_class(self.content_length, limit)

    @property
    def json_module(self) -> Any:
        """What decodes the body: StrictJson, whatever Quart hands over (the app's provider,
        which encodes the responses)."""
        return StrictJson

    @json_module.setter
    def json_module(self, provider: Any) -> None:
        pass

    @classmethod
    def allowing(cls, larger_bodies: Mapping[tuple[str, str], int]) -> type[JsonRequest]:
        """This request class with these routes' own body limits (one app's settings)."""
        return type(cls.__name__, (cls,), {"larger_bodies": dict(larger_bodies)})

    async def get_json(self, force: bool = False, silent: bool = False, cache: bool = True) -> Any:
        try:
            return await super().get_json(force=force, silent=silent, cache=cache)
        except (UnicodeDecodeError, RecursionError) as error:
            if silent:
                return None
            return self.on_json_loading_failed(error)


def parse_body(model: type[Body], data: Any) -> Body:
    """A decoded body as the model, or a RequestSchemaValidationError for the error table.

    Strict: JSON says what type a value is, so "5" is no integer, false no number and 123 no
    timestamp (lax pydantic would coerce all three); timestamps are ISO 8601 text.
    """
    try:
        return model.model_validate(data, strict=True)
    except ValidationError as error:
        raise RequestSchemaValidationError(error) from error


def _form(model: type[BaseModel], data: Any) -> type[BaseModel]:
    """The model a body is validated as. A body that comes in several forms (ours and
    Memoria's) is documented as their union, a RootModel whose `form_of(data)` names the form
    the body is in; it is validated as that form, so that its problems are named by field."""
    form_of: Callable[[Any], type[BaseModel]] | None = getattr(model, "form_of", None)
    return model if form_of is None else form_of(data)


def _with_query_branch(model: type[BaseModel], data: Any) -> Any:
    """A body that has a `branch` field may name it in the query string instead (`?branch=`
    means what it means on the GET routes), so it is never ignored; the two must agree."""
    named = request.args.get("branch")
    if named is None or "branch" not in model.model_fields or not isinstance(data, dict):
        return data
    if data.get("branch") not in (None, named):
        raise Invalid("branch: the query string and the body name different branches")
    return {**data, "branch": named}


def _takes_branch(model: type[BaseModel]) -> bool:
    """Whether the body has a `branch` field (in each of its forms)."""
    if "root" in model.model_fields and hasattr(model, "form_of"):
        forms = get_args(model.model_fields["root"].annotation)
        return all("branch" in form.model_fields for form in forms)
    return "branch" in model.model_fields


def _documented(model: type[BaseModel], handler: Callable[..., Any]) -> Callable[..., Any]:
    """The route's body in /openapi.json, and `?branch=` where the body has a branch."""
    documented = document_request(model)(handler)
    if _takes_branch(model):
        documented = document_querystring(BranchQuery)(documented)
    return documented


def validate_body(model: type[BaseModel]) -> Callable[[Handler], Handler]:
    """quart-schema's validate_request (documented the same way), validating with parse_body."""

    def decorate(handler: Handler) -> Handler:
        @wraps(handler)
        async def validated(*args: Any, **kwargs: Any) -> Any:
            decoded = await request.get_json()
            form = _form(model, decoded)
            data = parse_body(form, _with_query_branch(form, decoded))
            return await handler(*args, data=data, **kwargs)

        return cast(Handler, _documented(model, validated))

    return decorate


def validate_optional_body(model: type[BaseModel]) -> Callable[[Handler], Handler]:
    """validate_body for a route whose body may be absent: no body means the model's defaults."""

    def decorate(handler: Handler) -> Handler:
        @wraps(handler)
        async def validated(*args: Any, **kwargs: Any) -> Any:
            body = cast(bytes, await request.get_data(as_text=False))
            if not body.strip(JSON_WHITESPACE):
                decoded: Any = {}
            elif not request.is_json:
                raise Unparseable(HTTP_DETAILS[415])
            else:
                decoded = await request.get_json()
            form = _form(model, decoded)
            data = parse_body(form, _with_query_branch(form, decoded))
            return await handler(*args, data=data, **kwargs)

        return cast(Handler, _documented(model, validated))

    return decorate
