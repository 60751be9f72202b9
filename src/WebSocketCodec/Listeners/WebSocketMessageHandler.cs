using System.Net.WebSockets;

namespace WebSocketCodec;

/// <summary>Receives one whole message on the websocket's read loop (or event loop), with no allocation per message.</summary>
/// <typeparam name="TSender">The host's frame sender: <c>WebSocketFrameSender</c> on a pipe, <c>ChannelFrameSender</c>
/// on a SpanNetty channel.</typeparam>
/// <param name="sender">Sends on the same websocket (its synchronous methods may be used here: replies go out with the
/// read's flush).</param>
/// <param name="type">Text or Binary.</param>
/// <param name="payload">The message, valid until the call returns.</param>
public delegate void WebSocketMessageHandler<in TSender>(TSender sender, WebSocketMessageType type, ReadOnlySpan<byte> payload);
