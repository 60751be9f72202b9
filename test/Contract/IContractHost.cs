using System.Net;

namespace WebSocketCodec.Testing.Contract;

/// <summary>A host the contract suite runs against: it starts a server whose websockets run the listener the test
/// gives, with the session options the test gives, at path <c>/ws</c>.</summary>
public interface IContractHost
{
    /// <summary>Starts a server.</summary>
    /// <param name="session">The websockets' limits and timeouts.</param>
    /// <param name="listener">Given a websocket's sender, returns its listener.</param>
    Task<IContractServer> StartAsync(WebSocketSessionOptions session, Func<WebSocketFrameSender, IWebSocketFrameListener> listener);
}

/// <summary>A running server of the contract suite.</summary>
public interface IContractServer : IAsyncDisposable
{
    /// <summary>Where it listens (HTTP/1.1, cleartext).</summary>
    IPEndPoint EndPoint { get; }
}
