using System.Net.WebSockets;

namespace WebSocketCodec;

/// <summary>Receives one whole message on the websocket's read loop (or event loop), with no allocation per message:
/// the handler you give a <see cref="WebSocketMessageListener{TSender}"/>, for messages handled before the call
/// returns.</summary>
/// <typeparam name="TSender">The frame sender: the core <c>WebSocketFrameSender</c> on every host of the driver (a
/// pipe, a SpanNetty channel, a port of your own).</typeparam>
/// <param name="sender">Sends on the same websocket (its synchronous methods may be used here: replies go out with the
/// read's flush).</param>
/// <param name="type">Text or Binary.</param>
/// <param name="payload">The message, valid until the call returns.</param>
public delegate void WebSocketMessageHandler<in TSender>(TSender sender, WebSocketMessageType type, ReadOnlySpan<byte> payload);
