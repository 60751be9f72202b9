
namespace WebSocketCodec;

/// <summary>What a server accepts in an opening handshake, and the websocket's options once open: set them to restrict
/// origins, speak subprotocols, accept permessage-deflate, cap open websockets or change the limits and timeouts
/// (<see cref="Session"/>). The defaults: any origin, no subprotocol, 10 s handshake timeout, 8 KiB request head, no
/// cap on open websockets (<see cref="MaxConcurrentWebSockets"/>), and
/// <see cref="WebSocketSessionOptions.Default"/>.</summary>
/// <remarks>On ASP.NET Core, set them per endpoint with the <c>configure</c> delegate of <c>MapWebSocket</c>, or for
/// every endpoint with <c>services.Configure&lt;WebSocketAcceptOptions&gt;(...)</c> (the endpoint's delegate runs
/// after). A server takes a copy when it starts: later changes to the instance do not reach it.</remarks>
public sealed class WebSocketAcceptOptions
{
    /// <summary>permessage-deflate (RFC 7692): null (the default) declines it, as ASP.NET Core does; set, the first
    /// offer these options can accept is accepted and the client's compressed messages are inflated before the
    /// application sees them (bounded by <see cref="WebSocketSessionOptions.MaxMessagePayloadLength"/>), and whole
    /// messages sent with the sender's <c>Send</c>, <c>TrySend</c> and <c>SendAsync</c> are compressed (tier-1
    /// reservations, prefixed and bulk sends, fragments and broadcasts go uncompressed, which the extension allows per
    /// message). Accepted on the Kestrel endpoint (HTTP/1.1 and HTTP/2), the fast path and by
    /// <c>WebSocketServerHandshake</c>.</summary>
    public PerMessageDeflateOptions? Deflate { get; set; }

    /// <summary>Negotiates permessage-deflate for <paramref name="request"/> when <see cref="Deflate"/> is set.</summary>
    /// <returns>The settled parameters and the response's <c>Sec-WebSocket-Extensions</c> value, or nulls.</returns>
    internal (DeflateParameters? Parameters, string? Answer) NegotiateDeflate(WebSocketUpgradeRequest request) =>
        Deflate is { } deflate && PerMessageDeflateNegotiation.TryAccept(request.Extensions, deflate, out DeflateParameters parameters, out string? answer)
            ? (parameters, answer)
            : (null, null);

    /// <summary>Limits and timeouts of the websocket once open.</summary>
    public WebSocketSessionOptions Session { get; set; } = WebSocketSessionOptions.Default;

    /// <summary>Origins allowed to connect (exact, case-insensitive, e.g. <c>https://example.com</c>); a request with
    /// another <c>Origin</c> gets 403. Null allows every origin; requests without <c>Origin</c> (non-browser clients)
    /// are always allowed.</summary>
    public IReadOnlyCollection<string>? AllowedOrigins { get; set; }

    /// <summary>Subprotocols this server speaks, most preferred first: the first one the client also offers is
    /// selected. Ignored when <see cref="SelectSubprotocol"/> is set.</summary>
    public IReadOnlyList<string> Subprotocols { get; set; } = [];

    /// <summary>Picks the subprotocol from the validated request (return one of
    /// <see cref="WebSocketUpgradeRequest.Subprotocols"/>, or null for none).</summary>
    public Func<WebSocketUpgradeRequest, string?>? SelectSubprotocol { get; set; }

    /// <summary>How long a client may take to send its request head (raw-transport servers only; Kestrel applies its
    /// own request-header timeout on the endpoint path).</summary>
    public TimeSpan HandshakeTimeout { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>The bound on the request head (431 beyond).</summary>
    public int MaxRequestHeadLength { get; set; } = HttpHeadParser.DefaultMaxHeadLength;

    /// <summary>The most websockets open at once on one Kestrel endpoint (one <c>MapWebSocket</c>, one
    /// <c>UseWebSockets</c> listener), or under one options instance on SpanNetty (its handlers are made per
    /// connection: those made with the same instance share the count); a handshake beyond gets 503 and is not upgraded.
    /// <see cref="Unlimited"/> by default, as Kestrel's own connection limits: a cap is for a server that must keep
    /// memory for other work (the README's scale tool section gives the memory an idle websocket holds).</summary>
    public int MaxConcurrentWebSockets { get; set; } = Unlimited;

    /// <summary>The value of <see cref="MaxConcurrentWebSockets"/> that sets no cap (the default).</summary>
    public const int Unlimited = int.MaxValue;

    /// <summary>A copy whose later changes do not reach this instance (the collections are shared: they are read only).</summary>
    /// <returns>The copy.</returns>
    public WebSocketAcceptOptions Clone() => (WebSocketAcceptOptions)MemberwiseClone();

    /// <summary>The defaults, for servers given no options (never changed).</summary>
    internal static WebSocketAcceptOptions Defaults { get; } = new();

    /// <summary>Checks origin and picks the subprotocol for a validated request.</summary>
    /// <returns>A failure (403, or 400 for a selection that was not offered), or none.</returns>
    public HandshakeFailure Negotiate(WebSocketUpgradeRequest request, out string? subprotocol)
    {
        ArgumentNullException.ThrowIfNull(request);
        subprotocol = null;
        if (AllowedOrigins is not null && request.Origin is { } origin
            && !AllowedOrigins.Contains(origin, StringComparer.OrdinalIgnoreCase))
        {
            return new HandshakeFailure(403, $"The origin '{origin}' is not allowed.");
        }

        if (SelectSubprotocol is not null)
        {
            subprotocol = SelectSubprotocol(request);
            if (subprotocol is not null && !request.Subprotocols.Contains(subprotocol, StringComparer.Ordinal))
            {
                throw new InvalidOperationException($"The selected subprotocol '{subprotocol}' was not offered.");
            }

            return default;
        }

        foreach (string supported in Subprotocols)
        {
            if (request.Subprotocols.Contains(supported, StringComparer.Ordinal))
            {
                subprotocol = supported;
                break;
            }
        }

        return default;
    }
}
