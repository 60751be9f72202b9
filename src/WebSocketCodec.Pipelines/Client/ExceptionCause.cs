namespace WebSocketCodec.Pipelines;

/// <summary>Finds why a wrapped exception happened: the first inner exception of a type.</summary>
internal static class ExceptionCause
{
    /// <summary>The first exception of type <typeparamref name="T"/> among <paramref name="error"/>'s inner ones, or null.</summary>
    public static T? Find<T>(Exception error) where T : Exception
    {
        for (Exception? inner = error.InnerException; inner is not null; inner = inner.InnerException)
        {
            if (inner is T found)
            {
                return found;
            }
        }

        return null;
    }
}
