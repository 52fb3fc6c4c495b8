"""/admin/plugins: signers, packages, review and score, bindings per domain, the matrix and the
audit events."""

from __future__ import annotations

from typing import Any

from quart import Blueprint
from quart_schema import validate_querystring, validate_response

from app.api.auth import require
from app.api.bodies import validate_body
from app.api.context import registry
from app.api.errors import JSON_BODY, MASTER_AUTH, QUERY_STRING, error_statuses
from app.models.plugins import (
    Activation,
    Binding,
    BindingList,
    EventPage,
    EventQuery,
    Matrix,
    NewBinding,
    NewSigner,
    Package,
    PackageList,
    PackageQuery,
    Publish,
    Review,
    Score,
    Signer,
    SignerList,
)
from app.services.plugins import administration

blueprint = Blueprint("plugins", __name__, url_prefix="/admin/plugins")
blueprint.before_request(require("master"))


@blueprint.get("/signers")
@validate_response(SignerList)
@error_statuses(*MASTER_AUTH)
async def list_signers() -> Any:
    return await administration.signers(registry())


@blueprint.post("/signers")
@validate_body(NewSigner)
@validate_response(Signer, 201)
@error_statuses(*MASTER_AUTH, *JSON_BODY, 409)
async def add_signer(data: NewSigner) -> tuple[Any, int]:
    return await administration.add_signer(registry(), data), 201


@blueprint.post("")
@validate_body(Publish)
@validate_response(Package, 201)
@error_statuses(*MASTER_AUTH, *JSON_BODY, 409)
async def publish(data: Publish) -> tuple[Any, int]:
    return await administration.publish(registry(), data), 201


@blueprint.get("")
@validate_querystring(PackageQuery)
@validate_response(PackageList)
@error_statuses(*MASTER_AUTH, *QUERY_STRING)
async def list_packages(query_args: PackageQuery) -> Any:
    return await administration.listed(registry(), query_args)


@blueprint.post("/<key>/<version>/review")
@validate_body(Review)
@validate_response(Package)
@error_statuses(*MASTER_AUTH, *JSON_BODY, 404, 409)
async def review(key: str, version: str, data: Review) -> Any:
    return await administration.review(registry(), key, version, data.status)


@blueprint.post("/<key>/<version>/score")
@validate_body(Score)
@validate_response(Package)
@error_statuses(*MASTER_AUTH, *JSON_BODY, 404)
async def score(key: str, version: str, data: Score) -> Any:
    return await administration.score(registry(), key, version, data.score)


@blueprint.get("/matrix")
@validate_response(Matrix)
@error_statuses(*MASTER_AUTH)
async def matrix() -> Any:
    return await administration.matrix(registry())


@blueprint.get("/events")
@validate_querystring(EventQuery)
@validate_response(EventPage)
@error_statuses(*MASTER_AUTH, *QUERY_STRING)
async def events(query_args: EventQuery) -> Any:
    return await administration.events(registry(), query_args)


@blueprint.get("/domains/<domain>/bindings")
@validate_response(BindingList)
@error_statuses(*MASTER_AUTH, 404)
async def list_bindings(domain: str) -> Any:
    return await administration.bindings(registry(), domain)


@blueprint.post("/domains/<domain>/bindings")
@validate_body(NewBinding)
@validate_response(Binding, 201)
@error_statuses(*MASTER_AUTH, *JSON_BODY, 404, 409)
async def add_binding(domain: str, data: NewBinding) -> tuple[Any, int]:
    return await administration.add_binding(registry(), domain, data), 201


@blueprint.post("/domains/<domain>/activate")
@validate_body(Activation)
@validate_response(Binding, 201)
@error_statuses(*MASTER_AUTH, *JSON_BODY, 404, 409)
async def activate(domain: str, data: Activation) -> tuple[Any, int]:
    return await administration.activate(registry(), domain, data), 201
