public enum PlaceholderNetworking {}
