namespace WebSocketCodec;

/// <summary>Header fields by case-insensitive name, from our parser or from a server's request object.</summary>
public interface IHttpHeaderSource
{
    /// <summary>The value of the fields named <paramref name="name"/>, joined with ", "; null when absent.</summary>
    string? this[string name] { get; }

    /// <summary>How many fields are named <paramref name="name"/>.</summary>
    int Count(string name);
}
