namespace WebSocketCodec;

/// <summary>Header fields by case-insensitive name, from our parser (<see cref="HttpHead"/>) or from a server's request
/// object: implement it over your server's request to validate it with <see cref="WebSocketUpgradeRequest.Validate"/>
/// or decide on it with <see cref="WebSocketAcceptDecision.Decide"/>.</summary>
public interface IHttpHeaderSource
{
    /// <summary>The value of the fields named <paramref name="name"/>, joined with ", "; null when absent.</summary>
    string? this[string name] { get; }

    /// <summary>How many fields are named <paramref name="name"/>.</summary>
    int Count(string name);
}
