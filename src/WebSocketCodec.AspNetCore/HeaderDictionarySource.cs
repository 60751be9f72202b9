using Microsoft.AspNetCore.Http;

namespace WebSocketCodec.AspNetCore;

/// <summary>ASP.NET Core's request headers seen through <see cref="IHttpHeaderSource"/>.</summary>
internal sealed class HeaderDictionarySource(IHeaderDictionary headers) : IHttpHeaderSource
{
    public string? this[string name] => headers.TryGetValue(name, out var values) && values.Count > 0 ? string.Join(", ", values.ToArray()) : null;

    public int Count(string name) => headers.TryGetValue(name, out var values) ? values.Count : 0;
}
