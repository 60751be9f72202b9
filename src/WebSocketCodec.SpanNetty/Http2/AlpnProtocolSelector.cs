using System.Net.Security;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// HTTP/1.1 and HTTP/2 on one TLS port: placed right after a server's <see cref="SslStreamHandler"/> whose options
/// offer the ALPN protocols h2 and http/1.1 (RFC 7301; <see cref="ApplicationProtocols"/>), it waits for the handshake
/// (<see cref="SslStreamHandshakeCompleted"/>) and puts in its own place the pipeline for the protocol negotiated:
/// h2 → HTTP/2; http/1.1, or no ALPN at all → HTTP/1.1. No application byte is read before that, so none waits here.
/// </summary>
public sealed class AlpnProtocolSelector : ChannelHandlerAdapter
{
    private readonly Action<IChannelPipeline> _http1;
    private readonly Action<IChannelPipeline> _http2;
    private bool _decided;

    /// <summary>Selects by ALPN. <paramref name="http1"/> and <paramref name="http2"/> add the handlers that serve
    /// each protocol (with <c>AddLast</c>: they take this handler's place at the end of the pipeline).</summary>
    public AlpnProtocolSelector(Action<IChannelPipeline> http1, Action<IChannelPipeline> http2)
    {
        ArgumentNullException.ThrowIfNull(http1);
        ArgumentNullException.ThrowIfNull(http2);
        _http1 = http1;
        _http2 = http2;
    }

    /// <summary>The ALPN protocols to offer for both, in the server's order of preference: h2, then http/1.1 (for
    /// <see cref="SslServerAuthenticationOptions.ApplicationProtocols"/>).</summary>
    public static IReadOnlyList<SslApplicationProtocol> ApplicationProtocols { get; } = [SslApplicationProtocol.Http2, SslApplicationProtocol.Http11];

    /// <inheritdoc />
    public override void UserEventTriggered(IChannelHandlerContext context, object evt)
    {
        if (_decided || evt is not SslStreamHandshakeCompleted)
        {
            context.FireUserEventTriggered(evt);
            return;
        }

        _decided = true;
        SslStreamHandler tls = context.Pipeline.Get<SslStreamHandler>()
            ?? throw new InvalidOperationException("AlpnProtocolSelector goes after an SslStreamHandler.");
        bool http2 = tls.SslStream?.NegotiatedApplicationProtocol == SslApplicationProtocol.Http2;
        (http2 ? _http2 : _http1)(context.Pipeline);
        context.FireUserEventTriggered(evt);
        _ = context.Pipeline.Remove(this);
    }
}
