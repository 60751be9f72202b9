using System.Net.WebSockets;

namespace WebSocketCodec.SpanNetty;

/// <summary>Receives one whole message on the channel's event loop; <paramref name="payload"/> is valid until it
/// returns. Replies sent with <paramref name="sender"/> go out with the read cycle's flush.</summary>
public delegate void ChannelMessageHandler(ChannelFrameSender sender, WebSocketMessageType type, ReadOnlySpan<byte> payload);
