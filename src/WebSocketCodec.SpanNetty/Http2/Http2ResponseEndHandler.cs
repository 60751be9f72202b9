using DotNetty.Codecs.Http2;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// In front of a client stream's <see cref="Http2StreamByteAdapter"/>: a server that ended its side (END_STREAM) may
/// then reset the stream with NO_ERROR, telling the client it needs none of the rest of the request (RFC 9113 §8.1);
/// Kestrel does so when a websocket's handler returns. That reset is the graceful end of the stream, not a failure:
/// it is kept from the adapter (which reports any other reset as the websocket's failure), and the channel closes as
/// at the end of the server's side.
/// </summary>
internal sealed class Http2ResponseEndHandler : ChannelHandlerAdapter
{
    private bool _remoteEnded;

    public override void ChannelRead(IChannelHandlerContext context, object message)
    {
        _remoteEnded |= message is IHttp2StreamFrame and (IHttp2DataFrame { IsEndStream: true } or IHttp2HeadersFrame { IsEndStream: true });
        context.FireChannelRead(message);
    }

    public override void UserEventTriggered(IChannelHandlerContext context, object evt)
    {
        if (evt is IHttp2ResetFrame { ErrorCode: Http2Error.NoError } && _remoteEnded)
        {
            _ = context.Channel.CloseAsync(); // the stream is closed: nothing more to send or read
            return;
        }

        context.FireUserEventTriggered(evt);
    }
}
