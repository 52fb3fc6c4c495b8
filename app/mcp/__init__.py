"""The MCP server: tools built from the service registry, over streamable HTTP and stdio."""
