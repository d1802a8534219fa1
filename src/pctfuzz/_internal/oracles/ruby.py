"""Ruby's standard library through the Ruby peer (``pctfuzz/peers/ruby/peer.rb``;
docs/peers.md). The sets are what ``pctfuzz probe`` found on Ruby 3.1."""

from __future__ import annotations

from types import MappingProxyType

from pctfuzz._internal.oracles.langs import LangPeerAdapter

__all__ = ["RUBY_ADAPTERS"]


class _Ruby(LangPeerAdapter):
    lang = "ruby"


class RubyWwwFormComponent(_Ruby):
    """URI.encode_www_form_component (encode), URI.decode_www_form_component (decode)"""

    name = "ruby-www-form-component"
    sets = MappingProxyType({"www-form-component": "application/x-www-form-urlencoded"})
    spaces = (True,)


class RubyWwwForm(_Ruby):
    """URI.encode_www_form (form serialize), URI.decode_www_form (form parse)"""

    name = "ruby-www-form"


class RubyCgi(_Ruby):
    """CGI.escape (encode; space as '+'), CGI.unescape (decode)"""

    name = "ruby-cgi"
    sets = MappingProxyType({"escape": "rfc3986-unreserved"})
    spaces = (True,)


class RubyErb(_Ruby):
    """ERB::Util.url_encode (encode)"""

    name = "ruby-erb"
    sets = MappingProxyType({"url_encode": "rfc3986-unreserved"})
    spaces = (False,)


RUBY_ADAPTERS: tuple[type[LangPeerAdapter], ...] = (
    RubyWwwFormComponent, RubyWwwForm, RubyCgi, RubyErb,
)
