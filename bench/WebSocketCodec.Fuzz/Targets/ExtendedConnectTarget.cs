
namespace WebSocketCodec.Fuzz;

/// <summary>
/// RFC 8441 extended CONNECT validation (<see cref="WebSocketExtendedConnect.Validate"/>) over mutated header sets
/// (see <see cref="ExtendedConnectSeeds.Parse"/>); the same set also goes through the HTTP/1.1
/// <see cref="WebSocketUpgradeRequest.Validate"/>. Oracles: nothing is thrown; a failure is 400 with no request (501
/// for a CONNECT without <c>:protocol</c>, a tunnel request), a success has a request; what is accepted is a CONNECT with <c>:protocol websocket</c>, exactly one version field of
/// 13 and token subprotocols; the answer does not depend on the case of the field names.
/// </summary>
public sealed class ExtendedConnectTarget : IFuzzTarget
{
    /// <inheritdoc />
    public string Name => "h2connect";

    /// <inheritdoc />
    public Mutator Mutator { get; } = new(ExtendedConnectSeeds.All, frames: false, ExtendedConnectSeeds.Dictionary);

    /// <inheritdoc />
    public bool IsDocumented(Exception exception) => false;

    /// <inheritdoc />
    public void Run(CorpusEntry entry, byte[] input, FuzzContext context)
    {
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(context);
        (string method, string? protocol, List<KeyValuePair<string, string>> fields) = ExtendedConnectSeeds.Parse(input);
        var headers = new FieldList(fields);
        HandshakeFailure failure = WebSocketExtendedConnect.Validate(method, protocol, headers, out WebSocketUpgradeRequest? request);
        context.Count(failure.IsFailure ? $"refused {failure.StatusCode}{(failure.NeedsVersionHeader ? " +version" : string.Empty)}" : "accepted");
        int refusal = method == "CONNECT" && protocol is null ? 501 : 400;
        if (failure.IsFailure != (request is null) || (failure.IsFailure && failure.StatusCode != refusal))
        {
            throw new OracleFailureException($"validation gave {failure} with request {(request is null ? "null" : "set")}");
        }

        if (request is not null
            && (method != "CONNECT" || !string.Equals(protocol, WebSocketExtendedConnect.Protocol, StringComparison.OrdinalIgnoreCase)
                || headers.Count("Sec-WebSocket-Version") != 1 || headers["sec-websocket-version"]!.Trim() != "13"
                || !request.IsExtendedConnect || request.Key.Length != 0 || request.Subprotocols.Any(p => !HttpToken.IsToken(p))))
        {
            throw new OracleFailureException($"an invalid extended CONNECT was accepted: {method} :protocol '{protocol}'");
        }

        // Field names are case-insensitive: the same set with every name upper-cased gets the same answer.
        var upper = new FieldList([.. fields.Select(f => new KeyValuePair<string, string>(f.Key.ToUpperInvariant(), f.Value))]);
        HandshakeFailure again = WebSocketExtendedConnect.Validate(method, protocol, upper, out _);
        if (again != failure)
        {
            throw new OracleFailureException($"upper-cased field names changed the answer: {failure} vs {again}");
        }

        HandshakeFailure h1 = WebSocketUpgradeRequest.Validate(method, "HTTP/1.1", headers, out WebSocketUpgradeRequest? h1Request);
        if (h1.IsFailure != (h1Request is null))
        {
            throw new OracleFailureException($"HTTP/1.1 validation gave {h1} with request {(h1Request is null ? "null" : "set")}");
        }
    }

    /// <summary>Header fields as <see cref="IHttpHeaderSource"/>: names case-insensitive, repeated fields joined with
    /// ", ".</summary>
    private sealed class FieldList(List<KeyValuePair<string, string>> fields) : IHttpHeaderSource
    {
        public string? this[string name]
        {
            get
            {
                string? joined = null;
                foreach (var field in fields)
                {
                    if (string.Equals(field.Key, name, StringComparison.OrdinalIgnoreCase))
                    {
                        joined = joined is null ? field.Value : joined + ", " + field.Value;
                    }
                }

                return joined;
            }
        }

        public int Count(string name) => fields.Count(f => string.Equals(f.Key, name, StringComparison.OrdinalIgnoreCase));
    }
}
