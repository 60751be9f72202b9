using System.Text;
using DotNetty.Buffers;
using DotNetty.Codecs.Http2;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// The first handler of every HTTP/2 stream the server's multiplexer opens: it validates the request's HEADERS (what
/// HPACK validation would have checked, then RFC 8441 and the accept options), refuses with the statuses the Kestrel
/// endpoint answers (501 a classic CONNECT, 404 a path not served, 400 with <c>sec-websocket-version: 13</c>, 403 an
/// origin refused) or resets a malformed request (PROTOCOL_ERROR), and otherwise answers 200 without END_STREAM and
/// puts an <see cref="Http2StreamByteAdapter"/> and a <see cref="WebSocketChannelHandler"/> (or, in handshake-only
/// mode, the application's handlers) in its own place.
/// </summary>
internal sealed class Http2WebSocketRequestHandler(Http2WebSocketServer.Setup setup) : ChannelHandlerAdapter
{
    private static readonly AsciiString SecWebSocketProtocol = AsciiString.Cached("sec-websocket-protocol");
    private static readonly AsciiString SecWebSocketExtensions = AsciiString.Cached("sec-websocket-extensions");
    private static readonly AsciiString SecWebSocketVersion = AsciiString.Cached("sec-websocket-version");
    private static readonly AsciiString ContentType = AsciiString.Cached("content-type");
    private static readonly AsciiString TextPlain = AsciiString.Cached("text/plain; charset=utf-8");

    private bool _answered;
    private bool _remoteEnded;

    public override void ChannelRead(IChannelHandlerContext context, object message)
    {
        if (message is IHttp2HeadersFrame headers && !_answered)
        {
            _answered = true;
            _remoteEnded = headers.IsEndStream;
            OnRequest(context, headers.Headers);
            return;
        }

        // A refused request's body, or trailers: not read.
        if (message is IHttp2DataFrame { IsEndStream: true } or IHttp2HeadersFrame { IsEndStream: true })
        {
            _remoteEnded = true;
        }

        ReferenceCountUtil.Release(message);
    }

    public override void ExceptionCaught(IChannelHandlerContext context, Exception exception) => _ = context.CloseAsync();

    private void OnRequest(IChannelHandlerContext context, IHttp2Headers fields)
    {
        var request = new Http2RequestHeaders(fields);
        if (request.IsMalformed(out _))
        {
            Reset(context, Http2Error.ProtocolError);
            return;
        }

        string method = request.Method!;
        string? protocol = request.ConnectProtocol;
        if (method == "CONNECT" && protocol is null)
        {
            Refuse(context, new HandshakeFailure(501, "A CONNECT tunnel is not served here; a websocket is opened with :protocol websocket (RFC 8441)."));
            return;
        }

        HandshakeFailure failure = WebSocketExtendedConnect.Validate(method, protocol, request, out WebSocketUpgradeRequest? upgrade);
        if (!failure.IsFailure && _remoteEnded)
        {
            failure = new HandshakeFailure(400, "The extended CONNECT ended its stream: there is no websocket to carry.");
        }

        string target = request.Path ?? string.Empty;
        object? accepted = null;
        string? subprotocol = null;
        if (!failure.IsFailure)
        {
            accepted = target.StartsWith('/') ? setup.Route(upgrade!, target) : null;
            failure = accepted is null
                ? new HandshakeFailure(404, $"No websocket is served at '{target}'.")
                : setup.Accept.Negotiate(upgrade!, out subprotocol);
        }

        if (failure.IsFailure)
        {
            Refuse(context, failure);
            return;
        }

        Accept(context, upgrade!, accepted!, subprotocol);
    }

    private void Accept(IChannelHandlerContext context, WebSocketUpgradeRequest upgrade, object accepted, string? subprotocol)
    {
        var response = new DefaultHttp2Headers { Status = AsciiString.Cached("200") };
        if (subprotocol is not null)
        {
            response.Set(SecWebSocketProtocol, new AsciiString(subprotocol));
        }

        (DeflateParameters? deflate, string? extensions) = accepted is Http2StreamAccepted ? (null, null) : setup.Accept.NegotiateDeflate(upgrade);
        if (extensions is not null)
        {
            response.Set(SecWebSocketExtensions, new AsciiString(extensions));
        }

        _ = context.WriteAndFlushAsync(new DefaultHttp2HeadersFrame(response, endStream: false));
        IChannelPipeline pipeline = context.Pipeline;
        IChannel stream = context.Channel;
        pipeline.AddAfter(context.Name, "http2-stream", new Http2StreamByteAdapter(setup.Http2.EndStreamTimeout));
        if (accepted is Http2StreamAccepted handshakeOnly)
        {
            pipeline.Remove(this);
            handshakeOnly(stream, upgrade, subprotocol);
            return;
        }

        var websocket = new WebSocketChannelHandler(
            WebSocketRole.Server, (Func<ChannelFrameSender, IWebSocketFrameListener>)accepted, setup.Accept.Session, setup.Channel, subprotocol);
        if (deflate is { } parameters)
        {
            websocket.EnablePerMessageDeflate(parameters, setup.Accept.Deflate!);
        }

        pipeline.AddAfter("http2-stream", "websocket", websocket);
        pipeline.Remove(this);
        Http2WebSocketConnection.Of(stream.Parent)?.Add(websocket);
    }

    private void Refuse(IChannelHandlerContext context, HandshakeFailure failure)
    {
        var response = new DefaultHttp2Headers { Status = new AsciiString(failure.StatusCode.ToString(System.Globalization.CultureInfo.InvariantCulture)) };
        response.Set(ContentType, TextPlain);
        if (failure.NeedsVersionHeader)
        {
            response.Set(SecWebSocketVersion, AsciiString.Cached("13"));
        }

        _ = context.WriteAsync(new DefaultHttp2HeadersFrame(response, endStream: false));
        IByteBuffer body = context.Allocator.Buffer(failure.Message.Length + 1);
        body.WriteString(failure.Message + "\n", Encoding.UTF8);
        _ = context.WriteAndFlushAsync(new DefaultHttp2DataFrame(body, endStream: true));
        if (!_remoteEnded)
        {
            // The client's side is still open: the answer is complete, so the rest of its request is not wanted
            // (RFC 9113 §8.1: RST_STREAM NO_ERROR). Both sides then ended, and the codec closes the stream.
            Reset(context, Http2Error.NoError);
        }
    }

    private static void Reset(IChannelHandlerContext context, Http2Error error) =>
        _ = context.WriteAndFlushAsync(new DefaultHttp2ResetFrame(error));
}
