namespace WebSocketCodec;

/// <summary>A server's answer to an opening handshake, decided the same way by every host: use it
/// (<see cref="Decide"/>) in a server of your own, so that it validates, routes and negotiates as the packaged ones
/// do.</summary>
/// <remarks><para>It validates the request (RFC 6455 §4.2.1 over HTTP/1.1, RFC 8441 over HTTP/2 and HTTP/3), routes it,
/// checks the origin, chooses the subprotocol, negotiates permessage-deflate (RFC 7692) and builds the response. A host
/// maps its request into <see cref="WebSocketHandshakeFacts"/> and writes <see cref="StatusCode"/>,
/// <see cref="ResponseHeaders"/> and <see cref="ResponseBody"/> out as its protocol does.</para>
/// <para>The order of the checks, the first failure answering: the request's own rules (405, 400, 426, 501 for a
/// CONNECT without <c>:protocol</c>), a stream the request ended (400), a connection that cannot be upgraded (400), the
/// route (404), the server's capacity (503), the origin (403).</para></remarks>
public sealed class WebSocketAcceptDecision
{
    private const string TextPlain = "text/plain; charset=utf-8";

    private WebSocketAcceptDecision()
    {
    }

    /// <summary>Whether the websocket is accepted.</summary>
    public bool IsAccepted => !Failure.IsFailure;

    /// <summary>Why the handshake is refused (its status and message); a value that is no failure when accepted.</summary>
    public HandshakeFailure Failure { get; private init; }

    /// <summary>The response's status: 101 for an HTTP/1.1 upgrade, 200 for an extended CONNECT (the stream stays
    /// open), the refusal's status otherwise.</summary>
    public int StatusCode => Failure.IsFailure ? Failure.StatusCode : IsMultiplexed ? 200 : 101;

    /// <summary>Whether the answer goes on an HTTP/2 or HTTP/3 stream (its header names are lowercase and it has no
    /// connection-specific fields).</summary>
    public bool IsMultiplexed { get; private init; }

    /// <summary>The validated request, once it passed the request's own rules (also when refused later, by route,
    /// capacity or origin).</summary>
    public WebSocketUpgradeRequest? Request { get; private init; }

    /// <summary>The selected subprotocol, or null for none.</summary>
    public string? Subprotocol { get; private init; }

    /// <summary>The permessage-deflate parameters settled, or null when it is not used.</summary>
    public DeflateParameters? Deflate { get; private init; }

    /// <summary>The response's header fields, in order: <c>Upgrade</c>, <c>Connection</c> and
    /// <c>Sec-WebSocket-Accept</c> (HTTP/1.1 only), then <c>Sec-WebSocket-Protocol</c> and
    /// <c>Sec-WebSocket-Extensions</c> when set; for a refusal <c>Sec-WebSocket-Version: 13</c> (with <c>Upgrade</c> over
    /// HTTP/1.1) when it is about the version, <c>Allow: GET</c> for 405 over HTTP/1.1, <c>Content-Type</c>, and
    /// <c>Connection: close</c> over HTTP/1.1. The body's framing (<c>Content-Length</c>, END_STREAM) is the host's.</summary>
    public IReadOnlyList<KeyValuePair<string, string>> ResponseHeaders { get; private init; } = [];

    /// <summary>A refusal's plain-text body, the message and a line feed (UTF-8); null when accepted.</summary>
    public string? ResponseBody => Failure.IsFailure ? Failure.Message + "\n" : null;

    /// <summary>Decides on a request.</summary>
    /// <param name="request">What the server knows of the request.</param>
    /// <param name="options">What to accept; null for the defaults.</param>
    /// <param name="isServed">Whether a validated request's <see cref="WebSocketHandshakeFacts.Target"/> is served
    /// (404 otherwise); null serves every target. Not asked when the facts have no target.</param>
    /// <returns>The decision.</returns>
    /// <exception cref="InvalidOperationException"><see cref="WebSocketAcceptOptions.SelectSubprotocol"/> chose a
    /// subprotocol the client did not offer.</exception>
    public static WebSocketAcceptDecision Decide(
        WebSocketHandshakeFacts request, WebSocketAcceptOptions? options = null, Func<WebSocketUpgradeRequest, string, bool>? isServed = null)
    {
        ArgumentNullException.ThrowIfNull(request);
        if (!request.IsMultiplexed && request.HttpVersion is null)
        {
            throw new ArgumentException("An HTTP/1.x request has a version.", nameof(request));
        }

        options ??= WebSocketAcceptOptions.Defaults;
        HandshakeFailure failure = request.IsMultiplexed
            ? WebSocketExtendedConnect.Validate(request.Method, request.ConnectProtocol, request.Headers, out WebSocketUpgradeRequest? upgrade)
            : WebSocketUpgradeRequest.Validate(request.Method, request.HttpVersion!, request.Headers, out upgrade);
        string? subprotocol = null;
        if (!failure.IsFailure)
        {
            failure = Admit(request, upgrade!, isServed);
        }

        if (!failure.IsFailure)
        {
            failure = options.Negotiate(upgrade!, out subprotocol);
        }

        if (failure.IsFailure)
        {
            return new() { Failure = failure, IsMultiplexed = request.IsMultiplexed, Request = upgrade, ResponseHeaders = RefusalHeaders(failure, request.IsMultiplexed) };
        }

        (DeflateParameters? deflate, string? extensions) = options.NegotiateDeflate(upgrade!);
        return Accept(upgrade!, subprotocol, deflate, extensions);
    }

    /// <summary>Accepts <paramref name="request"/> with the subprotocol the application chose and no extension (a relay
    /// that passes the websocket's bytes through, say).</summary>
    /// <param name="request">A validated request.</param>
    /// <param name="subprotocol">One of the offered subprotocols, or null for none.</param>
    /// <returns>The decision.</returns>
    /// <exception cref="ArgumentException"><paramref name="subprotocol"/> was not offered.</exception>
    public static WebSocketAcceptDecision Accept(WebSocketUpgradeRequest request, string? subprotocol)
    {
        ArgumentNullException.ThrowIfNull(request);
        if (subprotocol is not null && !request.Subprotocols.Contains(subprotocol, StringComparer.Ordinal))
        {
            throw new ArgumentException($"The subprotocol '{subprotocol}' was not offered.", nameof(subprotocol));
        }

        return Accept(request, subprotocol, null, null);
    }

    /// <summary>Refuses with <paramref name="failure"/>: a head that could not be read, a timeout, a relay's failure.</summary>
    /// <param name="failure">The status and message.</param>
    /// <param name="multiplexed">Whether the answer goes on an HTTP/2 or HTTP/3 stream.</param>
    /// <returns>The decision.</returns>
    public static WebSocketAcceptDecision Refuse(HandshakeFailure failure, bool multiplexed = false)
    {
        if (!failure.IsFailure)
        {
            throw new ArgumentException("A refusal needs a status.", nameof(failure));
        }

        return new() { Failure = failure, IsMultiplexed = multiplexed, ResponseHeaders = RefusalHeaders(failure, multiplexed) };
    }

    /// <summary>The checks after the request's own rules, in order: stream, upgrade, route, capacity.</summary>
    private static HandshakeFailure Admit(WebSocketHandshakeFacts request, WebSocketUpgradeRequest upgrade, Func<WebSocketUpgradeRequest, string, bool>? isServed)
    {
        if (request.IsMultiplexed && request.StreamEnded)
        {
            return new(400, "The extended CONNECT ended its stream: there is no websocket to carry.");
        }

        if (!request.IsMultiplexed && request.CannotUpgrade)
        {
            return new(400, "This connection cannot be upgraded.");
        }

        if (request.Target is { } target && !(target.StartsWith('/') && (isServed?.Invoke(upgrade, target) ?? true)))
        {
            return new(404, $"No websocket is served at '{target}'.");
        }

        return request.OverCapacity ? HandshakeFailure.OverCapacity : default;
    }

    private static WebSocketAcceptDecision Accept(WebSocketUpgradeRequest request, string? subprotocol, DeflateParameters? deflate, string? extensions) => new()
    {
        IsMultiplexed = request.IsExtendedConnect,
        Request = request,
        Subprotocol = subprotocol,
        Deflate = deflate,
        ResponseHeaders = AcceptHeaders(request.IsExtendedConnect, request.IsExtendedConnect ? null : request.Key, subprotocol, extensions),
    };

    /// <summary>The header fields of an acceptance (see <see cref="ResponseHeaders"/>).</summary>
    internal static List<KeyValuePair<string, string>> AcceptHeaders(bool multiplexed, string? key, string? subprotocol, string? extensions)
    {
        var headers = new List<KeyValuePair<string, string>>(5);
        if (!multiplexed)
        {
            ArgumentNullException.ThrowIfNull(key);
            headers.Add(new("Upgrade", "websocket"));
            headers.Add(new("Connection", "Upgrade"));
            headers.Add(new("Sec-WebSocket-Accept", WebSocketHandshake.ComputeAccept(key)));
        }

        if (subprotocol is not null)
        {
            headers.Add(new(multiplexed ? "sec-websocket-protocol" : "Sec-WebSocket-Protocol", subprotocol));
        }

        if (extensions is not null)
        {
            if (extensions.AsSpan().ContainsAny('\r', '\n'))
            {
                throw new ArgumentException("The extensions value must be one header line.", nameof(extensions));
            }

            headers.Add(new(multiplexed ? "sec-websocket-extensions" : "Sec-WebSocket-Extensions", extensions));
        }

        return headers;
    }

    /// <summary>The header fields of a refusal (see <see cref="ResponseHeaders"/>).</summary>
    internal static List<KeyValuePair<string, string>> RefusalHeaders(HandshakeFailure failure, bool multiplexed)
    {
        var headers = new List<KeyValuePair<string, string>>(4);
        if (multiplexed)
        {
            if (failure.NeedsVersionHeader || failure.StatusCode == 426)
            {
                headers.Add(new("sec-websocket-version", "13"));
            }

            headers.Add(new("content-type", TextPlain));
            return headers;
        }

        if (failure.NeedsVersionHeader || failure.StatusCode == 426)
        {
            headers.Add(new("Sec-WebSocket-Version", "13"));
            headers.Add(new("Upgrade", "websocket"));
        }
        else if (failure.StatusCode == 405)
        {
            headers.Add(new("Allow", "GET"));
        }

        headers.Add(new("Content-Type", TextPlain));
        headers.Add(new("Connection", "close"));
        return headers;
    }
}
