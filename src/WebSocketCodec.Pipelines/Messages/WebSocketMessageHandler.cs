using System.Net.WebSockets;

namespace WebSocketCodec.Pipelines;

/// <summary>Receives whole messages on the read loop, with no allocation per message.</summary>
/// <param name="sender">Sends on the same websocket (its synchronous methods may be used here).</param>
/// <param name="type">Text or Binary.</param>
/// <param name="payload">The message, valid until the call returns.</param>
public delegate void WebSocketMessageHandler(WebSocketFrameSender sender, WebSocketMessageType type, ReadOnlySpan<byte> payload);
