namespace WebSocketCodec.Tests.Infrastructure;

/// <summary>Header fields as a host would offer them to the core's checks: by case-insensitive name, several fields of
/// one name joined with ", ".</summary>
internal sealed class FieldList(params (string Name, string Value)[] fields) : IHttpHeaderSource
{
    public string? this[string name]
    {
        get
        {
            string[] values = fields.Where(f => string.Equals(f.Name, name, StringComparison.OrdinalIgnoreCase)).Select(f => f.Value).ToArray();
            return values.Length == 0 ? null : string.Join(", ", values);
        }
    }

    public int Count(string name) => fields.Count(f => string.Equals(f.Name, name, StringComparison.OrdinalIgnoreCase));
}
