using DotNetty.Codecs.Http2;
using DotNetty.Common.Concurrency;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// The client's side of one extended CONNECT (RFC 8441 §4), first in a new stream's child channel: it sends the
/// request's HEADERS (without END_STREAM), reads the answer within the handshake timeout and checks it (200 and not
/// the stream's end; a subprotocol only from those offered; no extension but permessage-deflate, and only if offered,
/// answered acceptably), then puts an <see cref="Http2StreamByteAdapter"/> and a client-role
/// <see cref="WebSocketChannelHandler"/> in its place. A refusal, a reset, the stream's end or the timeout fail
/// <see cref="Completion"/> with a <see cref="WebSocketHandshakeException"/> and close the stream (a reset if it is open).
/// </summary>
internal sealed class Http2WebSocketClientHandshake : ChannelHandlerAdapter
{
    private static readonly AsciiString SecWebSocketProtocol = AsciiString.Cached("sec-websocket-protocol");
    private static readonly AsciiString SecWebSocketExtensions = AsciiString.Cached("sec-websocket-extensions");

    private readonly IHttp2Headers _request;
    private readonly string _target;
    private readonly Func<WebSocketFrameSender, IWebSocketFrameListener> _listenerFactory;
    private readonly WebSocketClientOptions _options;
    private readonly WebSocketChannelHandlerOptions _channel;
    private readonly TimeSpan _timeout;
    private readonly TimeSpan _endStreamTimeout;
    private readonly TaskCompletionSource<WebSocketChannelHandler> _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private IScheduledTask? _timer;
    private bool _sent;
    private bool _done;

    public Http2WebSocketClientHandshake(
        IHttp2Headers request, string target, Func<WebSocketFrameSender, IWebSocketFrameListener> listenerFactory, WebSocketClientOptions options,
        WebSocketChannelHandlerOptions channel, TimeSpan timeout, TimeSpan endStreamTimeout)
    {
        _request = request;
        _target = target;
        _listenerFactory = listenerFactory;
        _options = options;
        _channel = channel;
        _timeout = timeout;
        _endStreamTimeout = endStreamTimeout;
    }

    /// <summary>The websocket's handler once the server accepted.</summary>
    public Task<WebSocketChannelHandler> Completion => _completion.Task;

    public override void HandlerAdded(IChannelHandlerContext context)
    {
        _timer = context.Executor.Schedule(static (state, ctx) => ((Http2WebSocketClientHandshake)state).OnTimeout((IChannelHandlerContext)ctx), this, context, _timeout);
        if (context.Channel.IsActive)
        {
            Send(context);
        }
    }

    public override void ChannelActive(IChannelHandlerContext context)
    {
        Send(context);
        context.FireChannelActive();
    }

    public override void HandlerRemoved(IChannelHandlerContext context) => _timer?.Cancel();

    public override void ChannelRead(IChannelHandlerContext context, object message)
    {
        if (_done || message is not IHttp2HeadersFrame headers)
        {
            ReferenceCountUtil.Release(message); // a refusal's body, or what came after a failure
            return;
        }

        string status = headers.Headers.Status?.ToString() ?? string.Empty;
        if (status.Length == 3 && status[0] == '1')
        {
            return; // an informational answer: the final one follows
        }

        string? subprotocol;
        DeflateParameters? deflate;
        try
        {
            subprotocol = ExtendedConnectResponse.Validate(
                status, null, headers.IsEndStream, [.. headers.Headers.GetAll(SecWebSocketProtocol).Select(v => v.ToString())],
                [.. headers.Headers.GetAll(SecWebSocketExtensions).Select(v => v.ToString())], _options, _target, out deflate);
        }
        catch (WebSocketHandshakeException refused)
        {
            Fail(context, refused);
            return;
        }

        _done = true;
        _timer?.Cancel();
        var websocket = new WebSocketChannelHandler(WebSocketRole.Client, _listenerFactory, _options.Session, _channel, subprotocol);
        if (deflate is { } parameters)
        {
            websocket.EnablePerMessageDeflate(parameters, _options.Deflate!);
        }

        IChannelPipeline pipeline = context.Pipeline;
        pipeline.AddAfter(context.Name, "http2-response-end", new Http2ResponseEndHandler());
        pipeline.AddAfter("http2-response-end", "http2-stream", new Http2StreamByteAdapter(_endStreamTimeout));
        pipeline.AddAfter("http2-stream", "websocket", websocket);
        pipeline.Remove(this);
        _completion.TrySetResult(websocket);
    }

    public override void UserEventTriggered(IChannelHandlerContext context, object evt)
    {
        switch (evt)
        {
            case IHttp2ResetFrame reset:
                Fail(context, new WebSocketHandshakeException($"{_target} reset the stream ({reset.ErrorCode}) instead of answering the extended CONNECT."));
                return;
            case IHttp2GoAwayFrame goAway:
                Fail(context, new WebSocketHandshakeException($"The server's GOAWAY ({goAway.ErrorCode}, last stream {goAway.LastStreamId}) refused the websocket's stream."));
                return;
            default:
                context.FireUserEventTriggered(evt);
                return;
        }
    }

    public override void ChannelInactive(IChannelHandlerContext context)
    {
        Fail(context, new WebSocketHandshakeException($"The stream closed before {_target} answered the extended CONNECT."));
        context.FireChannelInactive();
    }

    public override void ExceptionCaught(IChannelHandlerContext context, Exception exception) =>
        Fail(context, new WebSocketHandshakeException($"The stream failed during the handshake with {_target}.", exception));

    private void Send(IChannelHandlerContext context)
    {
        if (_sent)
        {
            return;
        }

        _sent = true;
        _ = context.WriteAndFlushAsync(new DefaultHttp2HeadersFrame(_request, endStream: false)).ContinueWith(
            static (written, state) =>
            {
                var (self, ctx) = ((Http2WebSocketClientHandshake, IChannelHandlerContext))state!;
                if (!written.IsCompletedSuccessfully)
                {
                    Exception error = written.Exception?.GetBaseException() ?? new OperationCanceledException();
                    ctx.Executor.Execute(() => self.Fail(ctx, new WebSocketHandshakeException($"The extended CONNECT to {self._target} could not be sent: {error.Message}", error)));
                }
            },
            (this, context), CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        // SpanNetty's child channel drops its flush when the parent's write completed at once (its first-write path
        // only notes an unflushed write when the write is still pending), and a TLS handler completes a write when it
        // encrypted it: the HEADERS would wait for the connection's next flush. Flush the connection itself.
        context.Channel.Parent?.Flush();
    }

    private void OnTimeout(IChannelHandlerContext context)
    {
        if (!_done)
        {
            Fail(context, new WebSocketHandshakeException($"{_target} did not answer the extended CONNECT within {_timeout.TotalSeconds:0.#} s."));
        }
    }

    private void Fail(IChannelHandlerContext context, WebSocketHandshakeException error)
    {
        if (_done)
        {
            return;
        }

        _done = true;
        _timer?.Cancel();
        _completion.TrySetException(error);
        _ = context.CloseAsync(); // an open stream is reset (CANCEL)
    }
}
