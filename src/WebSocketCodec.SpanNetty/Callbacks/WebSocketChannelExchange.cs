namespace WebSocketCodec.SpanNetty;

/// <summary>Called once per websocket, on its event loop, when its handshake is done: given the sender, returns the
/// callbacks that receive its frames.</summary>
/// <param name="sender">Sends frames on this websocket.</param>
public delegate IWebSocketCallbacks WebSocketChannelExchange(ChannelFrameSender sender);
