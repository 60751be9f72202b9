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

        object? accepted = null;
        bool counted = setup.Open?.TryEnter() ?? true;
        WebSocketAcceptDecision decision = WebSocketAcceptDecision.Decide(
            new WebSocketHandshakeFacts
            {
                Method = request.Method!, IsMultiplexed = true, ConnectProtocol = request.ConnectProtocol, Headers = request,
                Target = request.Path ?? string.Empty, StreamEnded = _remoteEnded, OverCapacity = !counted,
            },
            setup.Accept, (upgrade, target) => (accepted = setup.Route(upgrade, target)) is not null);
        if (!decision.IsAccepted)
        {
            if (counted)
            {
                setup.Open?.Leave();
            }

            Refuse(context, decision);
            return;
        }

        if (accepted is Http2StreamAccepted)
        {
            decision = WebSocketAcceptDecision.Accept(decision.Request!, decision.Subprotocol); // the application's bytes: no deflate
        }

        Accept(context, decision, accepted!);
    }

    private void Accept(IChannelHandlerContext context, WebSocketAcceptDecision decision, object accepted)
    {
        _ = context.WriteAndFlushAsync(new DefaultHttp2HeadersFrame(Answer(decision), endStream: false));
        IChannelPipeline pipeline = context.Pipeline;
        IChannel stream = context.Channel;
        pipeline.AddAfter(context.Name, "http2-stream", new Http2StreamByteAdapter(setup.Http2.EndStreamTimeout));
        if (accepted is Http2StreamAccepted handshakeOnly)
        {
            pipeline.Remove(this);
            setup.Open?.LeaveWhenEnded(stream.CloseCompletion); // the application runs the stream's bytes itself

            handshakeOnly(stream, decision.Request!, decision.Subprotocol);
            return;
        }

        var websocket = new WebSocketChannelHandler(
            WebSocketRole.Server, (Func<WebSocketFrameSender, IWebSocketFrameListener>)accepted, setup.Accept.Session, setup.Channel, decision.Subprotocol);
        if (decision.Deflate is { } parameters)
        {
            websocket.EnablePerMessageDeflate(parameters, setup.Accept.Deflate!);
        }

        setup.Open?.LeaveWhenEnded(websocket.Driver);
        pipeline.AddAfter("http2-stream", "websocket", websocket);
        pipeline.Remove(this);
        Http2WebSocketConnection.Of(stream.Parent)?.Add(websocket);
    }

    private void Refuse(IChannelHandlerContext context, WebSocketAcceptDecision decision)
    {
        _ = context.WriteAsync(new DefaultHttp2HeadersFrame(Answer(decision), endStream: false));
        string body = decision.ResponseBody!;
        IByteBuffer data = context.Allocator.Buffer(Encoding.UTF8.GetByteCount(body));
        data.WriteString(body, Encoding.UTF8);
        _ = context.WriteAndFlushAsync(new DefaultHttp2DataFrame(data, endStream: true));
        if (!_remoteEnded)
        {
            // The client's side is still open: the answer is complete, so the rest of its request is not wanted
            // (RFC 9113 §8.1: RST_STREAM NO_ERROR). Both sides then ended, and the codec closes the stream.
            Reset(context, Http2Error.NoError);
        }
    }

    /// <summary>The decision's status and header fields as HTTP/2 headers (the names are lowercase already).</summary>
    private static DefaultHttp2Headers Answer(WebSocketAcceptDecision decision)
    {
        var headers = new DefaultHttp2Headers { Status = new AsciiString(decision.StatusCode.ToString(System.Globalization.CultureInfo.InvariantCulture)) };
        foreach ((string name, string value) in decision.ResponseHeaders)
        {
            headers.Set(new AsciiString(name), new AsciiString(value));
        }

        return headers;
    }

    private static void Reset(IChannelHandlerContext context, Http2Error error) =>
        _ = context.WriteAndFlushAsync(new DefaultHttp2ResetFrame(error));
}
