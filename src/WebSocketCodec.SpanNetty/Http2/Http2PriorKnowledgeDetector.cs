using DotNetty.Buffers;
using DotNetty.Common.Concurrency;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// HTTP/1.1 and HTTP/2 prior knowledge (h2c) on one cleartext port: the last handler of a new connection's pipeline
/// reads the first bytes, and once they are the 24-byte HTTP/2 connection preface (RFC 9113 §3.4, possibly split over
/// reads) or an HTTP/1.1 request line's method and space, it puts the pipeline the caller gave for that protocol in its
/// own place and hands it the bytes read so far (the first read's buffer itself when it held enough; reads gathered
/// into one composite buffer otherwise, never copied). Anything else is refused: the connection is closed, as is one
/// that has not sent enough bytes to tell within the detection timeout. With TLS, use <see cref="AlpnProtocolSelector"/>.
/// </summary>
public sealed class Http2PriorKnowledgeDetector : ChannelHandlerAdapter
{
    /// <summary>The detection timeout when none is given.</summary>
    public static readonly TimeSpan DefaultTimeout = TimeSpan.FromSeconds(10);

    private readonly Action<IChannelPipeline> _http1;
    private readonly Action<IChannelPipeline> _http2;
    private readonly TimeSpan _timeout;
    private IByteBuffer? _received;
    private IScheduledTask? _timer;
    private bool _decided;

    /// <summary>Detects the protocol of each connection. <paramref name="http1"/> and <paramref name="http2"/> add the
    /// handlers that serve it (with <c>AddLast</c>: they take this handler's place at the end of the pipeline).</summary>
    /// <param name="http1">Adds the HTTP/1.1 handlers (for example a <see cref="WebSocketServerUpgradeHandler"/>).</param>
    /// <param name="http2">Adds the HTTP/2 handlers (for example SpanNetty's <c>Http2FrameCodec</c> and
    /// <c>Http2MultiplexHandler</c>); they receive the preface as their first bytes.</param>
    /// <param name="timeout">How long a connection may take to send enough bytes to tell (default 10 s).</param>
    public Http2PriorKnowledgeDetector(Action<IChannelPipeline> http1, Action<IChannelPipeline> http2, TimeSpan? timeout = null)
    {
        ArgumentNullException.ThrowIfNull(http1);
        ArgumentNullException.ThrowIfNull(http2);
        TimeSpan detection = timeout ?? DefaultTimeout;
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(detection, TimeSpan.Zero, nameof(timeout));
        _http1 = http1;
        _http2 = http2;
        _timeout = detection;
    }

    /// <inheritdoc />
    public override void HandlerAdded(IChannelHandlerContext context)
    {
        if (context.Channel.IsActive)
        {
            StartTimer(context);
        }
    }

    /// <inheritdoc />
    public override void ChannelActive(IChannelHandlerContext context)
    {
        StartTimer(context);
        context.FireChannelActive();
    }

    /// <inheritdoc />
    public override void ChannelRead(IChannelHandlerContext context, object message)
    {
        if (_decided || message is not IByteBuffer buffer)
        {
            context.FireChannelRead(message);
            return;
        }

        Gather(context, buffer);
        switch (Classify(_received!))
        {
            case HttpProtocolGuess.Http2:
                Replace(context, _http2);
                break;
            case HttpProtocolGuess.Http1:
                Replace(context, _http1);
                break;
            case HttpProtocolGuess.Unrecognized:
                Refuse(context);
                break;
            default:
                if (!context.Channel.Configuration.IsAutoRead)
                {
                    context.Read();
                }

                break;
        }
    }

    /// <inheritdoc />
    public override void ChannelReadComplete(IChannelHandlerContext context)
    {
        if (_decided)
        {
            context.FireChannelReadComplete();
        }
    }

    /// <inheritdoc />
    public override void ChannelInactive(IChannelHandlerContext context)
    {
        Release(); // the peer left before it said which protocol
        context.FireChannelInactive();
    }

    /// <inheritdoc />
    public override void HandlerRemoved(IChannelHandlerContext context) => Release();

    /// <inheritdoc />
    public override void ExceptionCaught(IChannelHandlerContext context, Exception exception)
    {
        if (_decided)
        {
            context.FireExceptionCaught(exception);
            return;
        }

        Refuse(context); // a transport error before the protocol was known: nobody else to tell
    }

    private void StartTimer(IChannelHandlerContext context)
    {
        if (_timer is not null || _decided)
        {
            return;
        }

        _timer = context.Executor.Schedule(
            static (state, ctx) => ((Http2PriorKnowledgeDetector)state).OnTimeout((IChannelHandlerContext)ctx), this, context, _timeout);
    }

    private void OnTimeout(IChannelHandlerContext context)
    {
        if (!_decided)
        {
            Refuse(context);
        }
    }

    /// <summary>The core's verdict on the first readable bytes (at most the few it needs, copied; indexes untouched).</summary>
    private static HttpProtocolGuess Classify(IByteBuffer received)
    {
        Span<byte> start = stackalloc byte[HttpProtocolClassifier.BytesToDecide];
        int length = Math.Min(received.ReadableBytes, start.Length);
        for (int i = 0; i < length; i++)
        {
            start[i] = received.GetByte(received.ReaderIndex + i);
        }

        return HttpProtocolClassifier.Classify(start[..length]);
    }

    /// <summary>Keeps the first read's buffer as it is; later reads join it in a composite buffer (no copy).</summary>
    private void Gather(IChannelHandlerContext context, IByteBuffer buffer)
    {
        if (_received is null)
        {
            _received = buffer;
            return;
        }

        if (_received is not CompositeByteBuffer composite)
        {
            composite = context.Allocator.CompositeBuffer();
            composite.AddComponent(increaseWriterIndex: true, _received);
            _received = composite;
        }

        composite.AddComponent(increaseWriterIndex: true, buffer);
    }

    private void Replace(IChannelHandlerContext context, Action<IChannelPipeline> configure)
    {
        _decided = true;
        _timer?.Cancel();
        IByteBuffer received = _received!;
        _received = null;
        try
        {
            configure(context.Pipeline);
        }
        catch
        {
            received.Release();
            throw;
        }

        // The bytes go to the handlers just added (this context's next), then this handler leaves; the transport's
        // ChannelReadComplete that ends this read reaches them directly.
        context.FireChannelRead(received);
        _ = context.Pipeline.Remove(this);
    }

    private void Refuse(IChannelHandlerContext context)
    {
        _decided = true;
        _timer?.Cancel();
        Release();
        _ = context.CloseAsync();
    }

    private void Release()
    {
        _timer?.Cancel();
        IByteBuffer? received = _received;
        _received = null;
        ReferenceCountUtil.SafeRelease(received);
    }
}
