using System.Text;
using DotNetty.Buffers;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.Samples.SpanNettyEchoServer;

/// <summary>The transport's limit: a canned 101 once the request head has arrived, then every byte echoed as it came,
/// unparsed (each read written back, flushed once per read cycle).</summary>
public sealed class RawEchoHandler : ChannelHandlerAdapter
{
    private static readonly byte[] SwitchingProtocols = Encoding.ASCII.GetBytes(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: raw\r\n\r\n");

    private int _headEndMatched; // how much of CRLFCRLF was seen
    private bool _upgraded;

    public override void ChannelRead(IChannelHandlerContext context, object message)
    {
        if (message is not IByteBuffer buffer)
        {
            ReferenceCountUtil.Release(message);
            return;
        }

        if (!_upgraded)
        {
            while (buffer.IsReadable() && !_upgraded)
            {
                byte b = buffer.ReadByte();
                _headEndMatched = b == (_headEndMatched % 2 == 0 ? '\r' : '\n') ? _headEndMatched + 1 : (b == '\r' ? 1 : 0);
                _upgraded = _headEndMatched == 4;
            }

            if (_upgraded)
            {
                _ = context.WriteAsync(Unpooled.WrappedBuffer(SwitchingProtocols), context.VoidPromise());
            }

            if (!buffer.IsReadable())
            {
                buffer.Release();
                return;
            }
        }

        _ = context.WriteAsync(buffer, context.VoidPromise()); // the same buffer, back
    }

    public override void ChannelReadComplete(IChannelHandlerContext context) => context.Flush();

    public override void ExceptionCaught(IChannelHandlerContext context, Exception exception) => context.CloseAsync();
}
