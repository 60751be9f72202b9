using System.Net;

namespace WebSocketCodec.Testing.Contract;

/// <summary>A host the contract suite runs against: it starts a server whose websockets run the listener the test
/// gives, with the accept options the test gives, at path <c>/ws</c>.</summary>
public interface IContractHost
{
    /// <summary>Starts a server.</summary>
    /// <param name="accept">What it accepts (permessage-deflate or not) and the websockets' limits and timeouts
    /// (<see cref="WebSocketAcceptOptions.Session"/>).</param>
    /// <param name="listener">Given a websocket's sender, returns its listener.</param>
    Task<IContractServer> StartAsync(WebSocketAcceptOptions accept, Func<WebSocketFrameSender, IWebSocketFrameListener> listener);
}

/// <summary>A running server of the contract suite.</summary>
public interface IContractServer : IAsyncDisposable
{
    /// <summary>Where it listens (cleartext).</summary>
    IPEndPoint EndPoint { get; }

    /// <summary>Whether its websockets are HTTP/2 streams (RFC 8441, h2c prior knowledge) rather than upgraded HTTP/1.1
    /// connections.</summary>
    bool IsHttp2 => false;
}
