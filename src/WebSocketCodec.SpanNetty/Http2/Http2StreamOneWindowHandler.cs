using DotNetty.Codecs.Http2;
using DotNetty.Common.Concurrency;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>A handler that works around a SpanNetty 0.7.2012.2221 defect on stream 1 of an HTTP/2 connection:
/// <see cref="Http2WebSocketServer"/> adds it; add it yourself, between the codec and the multiplexer, only to a
/// connection of your own built on SpanNetty's <c>Http2FrameCodec</c> and <c>Http2MultiplexHandler</c>.</summary>
/// <remarks><c>Http2FrameCodec.ConsumeBytes</c> reads its "upgraded" stream property on stream 1 as a <c>bool</c>, and
/// on a connection that was not upgraded from HTTP/1.1 (prior knowledge or TLS with ALPN) the property is unset, so the
/// unboxing throws and the child channel of stream 1, the first stream of every connection, is reset at its first
/// WINDOW_UPDATE. Between the codec and the multiplexer, this handler returns stream 1's consumed bytes to the local
/// flow controller itself, as the codec does for every other stream. Not for a connection upgraded with h2c (there
/// stream 1 is the upgrade's and must not be consumed).</remarks>
public sealed class Http2StreamOneWindowHandler(Http2FrameCodec codec) : ChannelHandlerAdapter
{
    /// <inheritdoc />
    public override void Write(IChannelHandlerContext context, object message, IPromise promise)
    {
        if (message is IHttp2WindowUpdateFrame { Stream.Id: Http2CodecUtil.HttpUpgradeStreamId } update)
        {
            try
            {
                IHttp2Connection connection = codec.Connection;
                IHttp2Stream? stream = connection.Stream(update.Stream.Id);
                if (stream is not null)
                {
                    _ = connection.Local.FlowController.ConsumeBytes(stream, update.WindowSizeIncrement);
                }

                promise.TryComplete();
            }
            catch (Exception error)
            {
                promise.TrySetException(error);
            }

            return;
        }

        _ = context.WriteAsync(message, promise);
    }
}
