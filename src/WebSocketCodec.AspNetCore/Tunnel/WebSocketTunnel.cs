using Microsoft.AspNetCore.Http;

namespace WebSocketCodec.AspNetCore;

/// <summary>
/// A validated websocket opening handshake, not yet answered, for proxies and gateways: accept it to get the
/// websocket's opaque byte stream (frames are not decoded: relay them as they are), or refuse it. The handshake was
/// checked as strictly as on <c>MapWebSocket</c> endpoints (including allowed origins).
/// </summary>
public sealed class WebSocketTunnel
{
    private readonly bool _multiplexed;
    private Stream? _stream;
    private bool _answered;

    internal WebSocketTunnel(HttpContext context, WebSocketUpgradeRequest request, bool multiplexed)
    {
        Context = context;
        Request = request;
        _multiplexed = multiplexed;
    }

    /// <summary>The request (user, route values, headers to forward).</summary>
    public HttpContext Context { get; }

    /// <summary>The validated handshake: offered subprotocols, origin, whether it is an HTTP/2 extended CONNECT.</summary>
    public WebSocketUpgradeRequest Request { get; }

    /// <summary>Whether <see cref="AcceptAsync"/> or <see cref="RefuseAsync"/> answered the client.</summary>
    public bool IsAnswered => _answered;

    /// <summary>Accepts (101 over HTTP/1.1, 200 over HTTP/2) with <paramref name="subprotocol"/>, which must be one
    /// the client offered, and returns the stream that carries the websocket's bytes both ways. Over HTTP/2 the
    /// stream ends with END_STREAM when the application returns, or is reset with <see cref="Abort"/>.</summary>
    public async Task<Stream> AcceptAsync(string? subprotocol = null)
    {
        if (_answered)
        {
            throw new InvalidOperationException("The handshake was already answered.");
        }

        WebSocketAcceptDecision decision = WebSocketAcceptDecision.Accept(Request, subprotocol); // throws for one not offered
        _answered = true;
        _stream = await KestrelHandshake.AcceptAsync(Context, decision).ConfigureAwait(false);
        return _stream;
    }

    /// <summary>Refuses with <paramref name="statusCode"/> (e.g. 502 when the backend cannot be reached).</summary>
    public Task RefuseAsync(int statusCode, string message)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(statusCode, 400);
        if (_answered)
        {
            throw new InvalidOperationException("The handshake was already answered.");
        }

        _answered = true;
        return KestrelHandshake.RefuseAsync(Context, WebSocketAcceptDecision.Refuse(new HandshakeFailure(statusCode, message), _multiplexed));
    }

    /// <summary>Ends the websocket abruptly: RST_STREAM (CANCEL) over HTTP/2, the connection's reset over
    /// HTTP/1.1, as a relay does when its other side broke.</summary>
    public void Abort() => KestrelHandshake.Abort(Context, _multiplexed);
}
